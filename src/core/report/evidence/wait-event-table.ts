/**
 * The "why" of a changed cell, as markdown: base vs head wait-event profiles (share of backend
 * observations, change in percentage points) and the counters whose per-transaction rates changed
 * most. Pure: runs' diagnostics in, text out. Runs of one arm are pooled (counts over observations,
 * counter sums over transaction sums), so longer runs weigh more.
 */
import { escapeMarkdown } from '../markdown-escape.js';
import type { RunDiagnostics } from '../../results/diagnostics.js';

export interface WaitEventComparisonOptions {
  /** Rows of each table (default 8). */
  top?: number;
}

/** Counters that are the denominator, or that say nothing per transaction. */
const SKIPPED_COUNTERS = new Set(['database.xact_commit', 'database.xact_rollback', 'database.numbackends']);

interface Pooled {
  shares: Map<string, number>;
  observations: number;
  perTransaction: Map<string, number>;
  transactions: number;
}

function pool(runs: readonly RunDiagnostics[]): Pooled {
  const counts = new Map<string, number>();
  const sums = new Map<string, number>();
  let observations = 0;
  let transactions = 0;
  for (const r of runs) {
    observations += r.observations;
    transactions += r.transactions;
    for (const e of r.waitEvents) counts.set(e.event, (counts.get(e.event) ?? 0) + e.count);
    for (const [k, v] of Object.entries(r.counters)) sums.set(k, (sums.get(k) ?? 0) + v);
  }
  const shares = new Map([...counts].map(([k, c]) => [k, observations > 0 ? c / observations : 0]));
  const perTransaction = new Map(
    [...sums]
      .filter(([k]) => !SKIPPED_COUNTERS.has(k))
      .map(([k, s]) => [k, transactions > 0 ? s / transactions : 0]),
  );
  return { shares, observations, perTransaction, transactions };
}

export function renderWaitEventComparison(
  base: readonly RunDiagnostics[],
  head: readonly RunDiagnostics[],
  options: WaitEventComparisonOptions = {},
): string {
  const top = options.top ?? 8;
  const b = pool(base);
  const h = pool(head);
  const lines: string[] = [];
  if (b.observations === 0 && h.observations === 0) {
    lines.push('No wait-event samples were taken.');
  } else {
    const events = [...new Set([...b.shares.keys(), ...h.shares.keys()])]
      .map((event) => ({ event, base: b.shares.get(event) ?? 0, head: h.shares.get(event) ?? 0 }))
      .sort((x, y) => Math.max(y.base, y.head) - Math.max(x.base, x.head) || x.event.localeCompare(y.event))
      .slice(0, top);
    lines.push(
      `Wait events (share of backend samples; base ${b.observations}, head ${h.observations} observations):`,
      '',
      '| Wait event | Base | Head | Change |',
      '|---|--:|--:|--:|',
      ...events.map(
        (e) =>
          `| ${escapeMarkdown(e.event)} | ${percent(e.base)} | ${percent(e.head)} | ${points(e.head - e.base)} |`,
      ),
    );
  }
  const counters = [...new Set([...b.perTransaction.keys(), ...h.perTransaction.keys()])]
    .map((name) => ({ name, base: b.perTransaction.get(name) ?? 0, head: h.perTransaction.get(name) ?? 0 }))
    .filter((c) => c.base !== c.head)
    .map((c) => ({
      ...c,
      relative: Math.abs(c.head - c.base) / Math.max(Math.abs(c.base), Math.abs(c.head)),
    }))
    .sort((x, y) => y.relative - x.relative || x.name.localeCompare(y.name))
    .slice(0, top);
  if (b.transactions > 0 && h.transactions > 0 && counters.length > 0) {
    lines.push(
      '',
      `Largest counter changes per transaction (base ${b.transactions}, head ${h.transactions} transactions):`,
      '',
      '| Counter | Base / txn | Head / txn | Change |',
      '|---|--:|--:|--:|',
      ...counters.map(
        (c) =>
          `| ${escapeMarkdown(c.name)} | ${number(c.base)} | ${number(c.head)} | ${c.base === 0 ? 'new' : relativeChange(c.head / c.base - 1)} |`,
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

function points(delta: number): string {
  const pp = delta * 100;
  return `${pp > 0 ? '+' : pp < 0 ? '−' : '±'}${Math.abs(pp).toFixed(1)} pp`;
}

function relativeChange(ratio: number): string {
  const pct = ratio * 100;
  return `${pct > 0 ? '+' : pct < 0 ? '−' : '±'}${Math.abs(pct).toFixed(1)}%`;
}

function number(x: number): string {
  if (x === 0) return '0';
  const abs = Math.abs(x);
  if (abs >= 1000) return Math.round(x).toLocaleString('en-US');
  return Number(x.toPrecision(3)).toString();
}
