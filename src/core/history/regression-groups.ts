/**
 * Regressions grouped by cause, as Skia Perf groups its anomalies: the regressed cells of every workload,
 * client count, metric and machine whose commit ranges (last good .. first bad) overlap or touch are one
 * group, one regression issue, one bisection. Overlap is read on the runs' dates (every machine measures the nightly
 * heads in order, so the dates order the commits) or a shared first bad commit. A drift is spread over
 * many commits: it groups only with drifts, so a two-month drift never swallows a one-night step.
 *
 * Cells an open issue already tracks stay together (`together`): the group of an issue is stable across
 * nights as evidence is added, and an issue of the one-issue-per-workload format is adopted by its group.
 */
import type { SeriesAnalysis, SeriesChangePoint } from './history-analysis.js';
import { severity, workloadId, type NightlyJudgement, type RegressedCell } from './nightly-judgement.js';

/** What a regression issue is about: its regressed cells, the worst first, and the series to look them up. */
export interface EventSubject {
  /** The anchor's workload id ("fingerprint/workload"): the member whose change point came first. */
  id: string;
  /** The regressed cells, the worst (the largest change) first. */
  regressed: RegressedCell[];
  /** Analysed series where the cells an issue tracks are found (recovered cells too). */
  series: SeriesAnalysis[];
}

/** One group: every regressed cell whose commit range overlaps another's, across workloads and machines. */
export type RegressionGroup = EventSubject;

/** The commit range of a cell's change point as dates: last good run .. first bad (a drift: its end). */
function rangeOf(cp: SeriesChangePoint): { from: number; to: number } {
  return { from: Date.parse(cp.lastBefore.date), to: Date.parse((cp.drift?.end ?? cp.firstAfter).date) };
}

/** Whether two change points can share a cause: a drift only with a drift, and overlapping ranges. */
export function rangesOverlap(a: SeriesChangePoint, b: SeriesChangePoint): boolean {
  if ((a.shape === 'drift') !== (b.shape === 'drift')) return false;
  if (a.firstAfter.sha !== null && a.firstAfter.sha === b.firstAfter.sha) return true;
  const x = rangeOf(a);
  const y = rangeOf(b);
  // Closed ends: ranges that touch (the first bad run of one is the last good run of the other) join, since
  // where a change point falls in noise is uncertain by a run: two client counts of one step are often
  // found a night apart.
  return x.from <= y.to && y.from <= x.to;
}

/**
 * The regression groups of a night: connected components of "ranges overlap" (or "tracked by one open
 * issue", each entry of `together` the series ids one issue tracks), ordered by their worst cell, the
 * largest first. Pure; O(n²) in the regressed cells, a few hundred at most.
 */
export function groupRegressions(
  judgement: Pick<NightlyJudgement, 'events' | 'workloads'>,
  together: readonly (readonly string[])[] = [],
): RegressionGroup[] {
  const cells = judgement.events.flatMap((w) => w.regressed);
  const parent = cells.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i]!)));
  const join = (i: number, j: number) => {
    parent[root(i)] = root(j);
  };
  for (let i = 0; i < cells.length; i++) {
    for (let j = i + 1; j < cells.length; j++) {
      if (rangesOverlap(cells[i]!.changePoint, cells[j]!.changePoint)) join(i, j);
    }
  }
  for (const ids of together) {
    const members = cells.flatMap((c, i) => (ids.includes(c.series.id) ? [i] : []));
    for (const i of members.slice(1)) join(members[0]!, i);
  }
  const series = judgement.workloads.flatMap((w) => w.series);
  const byRoot = new Map<number, RegressedCell[]>();
  cells.forEach((c, i) => byRoot.set(root(i), [...(byRoot.get(root(i)) ?? []), c]));
  return [...byRoot.values()]
    .map((members): RegressionGroup => {
      // Stable sort: equal severities keep the judgement's order (fingerprint, workload, fewer clients).
      const regressed = [...members].sort((a, b) => severity(b.changePoint) - severity(a.changePoint));
      const anchor = [...members].sort((a, b) => rangeOf(a.changePoint).to - rangeOf(b.changePoint).to)[0]!;
      return { id: workloadId(anchor.series.key.fingerprint, anchor.series.key.workload), regressed, series };
    })
    .sort((a, b) => severity(b.regressed[0]!.changePoint) - severity(a.regressed[0]!.changePoint));
}
