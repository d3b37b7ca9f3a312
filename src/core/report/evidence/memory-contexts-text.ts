/**
 * The largest backend's memory contexts, base → head, in one line every markup shows under the cell's
 * backend memory (the terminal's steady lines, the comment's steady section):
 *
 *     memory contexts of the largest backend, base → head: CacheMemoryContext 512 kB → 512 kB; index info
 *     220 kB → 220 kB; ...; all contexts 1.26 MB → 1.26 MB; outside any context 0.61 MB → 4.6 MB
 *
 * A name among one arm's largest and not the other's is at most the other's smallest listed ("≤ 48.6 kB").
 * Pure.
 */
import { TOP_CONTEXTS, type ContextTotal } from '../../results/memory-contexts.js';
import type {
  ArmContexts,
  MemoryContextsComparison,
} from '../../compare/evidence/memory-contexts-summary.js';
import { formatBytes } from '../../util/bytes.js';

export const MEMORY_CONTEXTS_LEAD = 'memory contexts of the largest backend, base → head';

/** Its words after MEMORY_CONTEXTS_LEAD and ": ". */
export function memoryContextsText(c: MemoryContextsComparison): string {
  const { base, head } = c;
  const names = new Map<string, number>();
  for (const t of [...(base?.top ?? []), ...(head?.top ?? [])]) {
    names.set(t.name, Math.max(names.get(t.name) ?? 0, t.totalBytes));
  }
  const order = [...names.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, TOP_CONTEXTS)
    .map(([name]) => name);
  const parts = order.map((name) => `${name} ${value(base, name)} → ${value(head, name)}`);
  parts.push(`all contexts ${total(base, (a) => a.totalBytes)} → ${total(head, (a) => a.totalBytes)}`);
  const outside = (a: ArmContexts) =>
    a.backendBytes === undefined ? undefined : Math.max(0, a.backendBytes - a.totalBytes);
  if ((base && outside(base) !== undefined) || (head && outside(head) !== undefined)) {
    parts.push(`outside any context ${total(base, outside)} → ${total(head, outside)}`);
  }
  const why = Object.entries(c.why ?? {}).map(([arm, reason]) => `${arm}'s not recorded: ${reason}`);
  return [...parts, ...why].join('; ');
}

function value(arm: ArmContexts | undefined, name: string): string {
  if (!arm) return '–';
  const found = arm.top.find((t: ContextTotal) => t.name === name);
  if (found) return formatBytes(found.totalBytes);
  const smallest = arm.top.at(-1);
  return smallest && arm.top.length >= TOP_CONTEXTS ? `≤ ${formatBytes(smallest.totalBytes)}` : '–';
}

function total(arm: ArmContexts | undefined, of: (a: ArmContexts) => number | undefined): string {
  const v = arm ? of(arm) : undefined;
  return v === undefined ? '–' : formatBytes(v);
}
