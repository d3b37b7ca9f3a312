/**
 * The waterfall of one workload of an attribution, as plain values: from the `from` end's count, one step
 * per commit named (its change, from the running total), the remainder (the ranges below the floor and
 * those unresolved: what the commits named do not explain), and the `to` end's count. Every renderer
 * draws these bars (the terminal's text, waterfall.svg), so they agree on every value.
 */
import type { AttributionReport } from './attribution-report.js';

export interface WaterfallBar {
  /** `from` and `to`: the ends' levels; `commit`: a commit named; `remainder`: the rest of the change. */
  kind: 'from' | 'commit' | 'remainder' | 'to';
  /** The commit's sha (full) for a commit, else the kind. */
  label: string;
  subject?: string;
  /** The running total before and after the bar (equal for the ends). */
  start: number;
  end: number;
  /** end - start for a step; the level for an end. */
  value: number;
}

/** The bars of `workload`, in order: from, the commits named in range order, remainder, to. */
export function waterfallOf(report: AttributionReport, workload: string): WaterfallBar[] {
  const w = report.workloads.find((x) => x.workload === workload);
  if (!w) throw new RangeError(`no workload ${workload} in the attribution`);
  const bars: WaterfallBar[] = [
    { kind: 'from', label: 'from', start: w.fromPerTx, end: w.fromPerTx, value: w.fromPerTx },
  ];
  let level = w.fromPerTx;
  for (const c of report.culprits) {
    const change = c.changes.find((x) => x.workload === workload);
    if (!change) continue;
    const end = level + change.changePerTx;
    bars.push({
      kind: 'commit',
      label: c.sha,
      subject: c.subject,
      start: level,
      end,
      value: change.changePerTx,
    });
    level = end;
  }
  bars.push({
    kind: 'remainder',
    label: 'remainder',
    start: level,
    end: w.toPerTx,
    value: w.toPerTx - level,
  });
  bars.push({ kind: 'to', label: 'to', start: w.toPerTx, end: w.toPerTx, value: w.toPerTx });
  return bars;
}
