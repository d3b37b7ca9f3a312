/**
 * Memory as evidence (docs/decision.md#memory). Per head and cell, each memory metric's median over base's
 * runs against head's (backend memory peak and median per backend, temp bytes per transaction;
 * src/core/results/memory.ts). A change *moved* when it is beyond both floors of its metric, in bytes and in
 * percent: the bytes keep a few kB of allocator slack on a small figure from counting, the percent keeps a
 * large figure's wobble from counting. Memory per backend and spilled bytes are near deterministic for a
 * fixed workload, so the medians of a few runs suffice (an A/A pair of one install moves by far less than
 * either floor).
 *
 * Policy: a moved memory metric is a regression (more) or an improvement (less) of its cell by default
 * (memory-verdict.ts), and a head whose memory moved is never passed on steady evidence (steady-evidence.ts).
 * Pure.
 */
import { median } from 'simple-statistics';
import { METRICS } from '../../results/metrics.js';
import { formatBytes } from '../../util/bytes.js';
import type { MemoryMetricName } from '../../results/memory.js';
import type { RunResult, Sample } from '../../results/result-types.js';

/** The floors beyond which a memory change counts by default, per metric (bytes, and percent of base). */
export const MEMORY_FLOORS: Readonly<Partial<Record<MemoryMetricName, { bytes: number; pct: number }>>> = {
  // 2 MiB and 20%: a backend's anonymous memory moved by up to 0.7 MB (16%) between A/A runs of one
  // install here (allocator arenas, the moment of the reading): the floors hold about 3x that in bytes; the
  // medians of 4 runs moved at most 165 kB (4.1%) over 16 A/A pair-cells (bench/memory-aa.ts). A patch that
  // keeps 2 MiB more per backend is a finding (times max_connections).
  backendMemoryPeakBytes: { bytes: 2 * 1024 * 1024, pct: 20 },
  backendMemoryMedianBytes: { bytes: 2 * 1024 * 1024, pct: 20 },
  // 8 kB (one block) and 10% per transaction: spills are block-sized and repeat exactly with the data.
  tempBytesPerTx: { bytes: 8192, pct: 10 },
};

/** Fewest usable runs per arm for a memory judgement. */
export const MIN_MEMORY_RUNS = 3;

export interface MemoryChange {
  metric: MemoryMetricName;
  base: number;
  head: number;
  /** head − base. */
  deltaBytes: number;
  /** 100·(head / base − 1); null when base is 0. */
  deltaPct: number | null;
  baseRuns: number;
  headRuns: number;
  /** Beyond both floors of the metric. */
  moved: boolean;
  /** "backend memory peak 2.1 MB -> 6.2 MB (+4.1 MB, +195%)". */
  message: string;
}

export interface MemoryJudgement {
  /** True when any memory metric of the cell moved beyond its floors. */
  moved: boolean;
  /** Every metric with enough runs in both arms, MEMORY_FLOORS order. */
  changes: MemoryChange[];
}

/** Per head and cell, its memory against base's; undefined where neither arm has enough runs. */
export type MemoryLookup = (
  head: string,
  cell: { workload: string; clients: number },
) => MemoryJudgement | undefined;

export function memoryLookup(result: Pick<RunResult, 'samples' | 'arms'>): MemoryLookup {
  const base = result.arms[0]?.label;
  const byKey = new Map<string, Sample[]>();
  for (const s of result.samples) {
    if (s.status !== 'ok') continue;
    const key = `${s.arm}\u0000${s.workload}\u0000${s.clients}`;
    const list = byKey.get(key);
    if (list) list.push(s);
    else byKey.set(key, [s]);
  }
  return (head, cell) => {
    if (base === undefined) return undefined;
    const of = (arm: string) => byKey.get(`${arm}\u0000${cell.workload}\u0000${cell.clients}`) ?? [];
    return judgeMemory(of(base), of(head));
  };
}

/** The judgement of two arms' runs of one cell (see the module comment). */
export function judgeMemory(base: readonly Sample[], head: readonly Sample[]): MemoryJudgement | undefined {
  const changes: MemoryChange[] = [];
  for (const [metric, floor] of Object.entries(MEMORY_FLOORS) as Array<
    [MemoryMetricName, { bytes: number; pct: number }]
  >) {
    const values = (runs: readonly Sample[]) =>
      runs.map((s) => s.metrics[metric]).filter((v): v is number => Number.isFinite(v) && v! >= 0);
    const b = values(base);
    const h = values(head);
    if (b.length < MIN_MEMORY_RUNS || h.length < MIN_MEMORY_RUNS) continue;
    const bm = median(b);
    const hm = median(h);
    const deltaBytes = hm - bm;
    const deltaPct = bm > 0 ? 100 * (hm / bm - 1) : null;
    // From nothing (no spill in base) only the bytes floor applies: any percent is beyond.
    const moved =
      Math.abs(deltaBytes) >= floor.bytes && (deltaPct === null || Math.abs(deltaPct) >= floor.pct);
    const pct = deltaPct === null ? '' : `, ${deltaPct >= 0 ? '+' : ''}${deltaPct.toFixed(1)}%`;
    const message =
      `${METRICS[metric].label} ${formatBytes(bm)} -> ${formatBytes(hm)} ` +
      `(${deltaBytes >= 0 ? '+' : '-'}${formatBytes(Math.abs(deltaBytes))}${pct}; medians of ${b.length} and ${h.length} runs)`;
    changes.push({
      metric,
      base: bm,
      head: hm,
      deltaBytes,
      deltaPct,
      baseRuns: b.length,
      headRuns: h.length,
      moved,
      message,
    });
  }
  if (changes.length === 0) return undefined;
  return { moved: changes.some((c) => c.moved), changes };
}
