/**
 * The memory contexts of the largest backend (src/core/results/memory-contexts.ts), base's beside head's, for
 * a cell whose backend memory moved beyond its floors (memory-evidence.ts): where a hacker looks next. Each
 * run records one backend's contexts; per arm the run shown is the one with the median peak (the lower
 * middle), so one odd run does not speak for the arm. Pure.
 */
import type { ContextTotal } from '../../results/memory-contexts.js';
import type { Sample } from '../../results/result-types.js';
import { judgeMemory } from './memory-evidence.js';

/** One arm's contexts, as one of its runs recorded them. */
export interface ArmContexts {
  top: ContextTotal[];
  /** All its contexts, bytes. */
  totalBytes: number;
  /** The backend's private memory right after, bytes; absent when unread. */
  backendBytes?: number;
  /** The run's backend memory peak (what chose it), bytes. */
  peakBytes: number;
}

export interface MemoryContextsComparison {
  /** Absent where no run of the arm recorded them; `why` then says why (the first run's reason). */
  base?: ArmContexts;
  head?: ArmContexts;
  why?: { base?: string; head?: string };
}

/**
 * The contexts of both arms' runs of one cell, when the cell's backend memory (peak or median) moved beyond
 * its floors and some run of either arm recorded them; undefined otherwise.
 */
export function memoryContextsComparison(
  base: readonly Sample[],
  head: readonly Sample[],
): MemoryContextsComparison | undefined {
  const judged = judgeMemory(base, head);
  const moved = judged?.changes.some(
    (c) => c.moved && (c.metric === 'backendMemoryPeakBytes' || c.metric === 'backendMemoryMedianBytes'),
  );
  if (!moved) return undefined;
  const b = armContexts(base);
  const h = armContexts(head);
  if (typeof b === 'string' && typeof h === 'string') return undefined;
  const why = {
    ...(typeof b === 'string' ? { base: b } : {}),
    ...(typeof h === 'string' ? { head: h } : {}),
  };
  return {
    ...(typeof b === 'object' ? { base: b } : {}),
    ...(typeof h === 'object' ? { head: h } : {}),
    ...(Object.keys(why).length > 0 ? { why } : {}),
  };
}

/** The median-peak run's contexts, or why none was recorded. */
function armContexts(runs: readonly Sample[]): ArmContexts | string {
  const recorded: ArmContexts[] = [];
  let why = 'no run recorded them';
  for (const s of runs) {
    if (s.status !== 'ok') continue;
    const c = s.memory?.contexts;
    const peak = s.memory?.peakBytes;
    if (c?.top && c.totalBytes !== undefined && peak !== undefined) {
      recorded.push({
        top: c.top,
        totalBytes: c.totalBytes,
        ...(c.backendBytes !== undefined ? { backendBytes: c.backendBytes } : {}),
        peakBytes: peak,
      });
    } else if (c?.notRecorded && why === 'no run recorded them') why = c.notRecorded;
  }
  if (recorded.length === 0) return why;
  recorded.sort((x, y) => x.peakBytes - y.peakBytes);
  return recorded[Math.floor((recorded.length - 1) / 2)]!;
}
