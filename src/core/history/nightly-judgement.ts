/**
 * The nightly judgement of a stored history (plain values): which workloads have an open regression event,
 * in which cells (the series whose latest change point is a regression), which series improved, and which
 * are too short to say. The nightly flow (src/flows/nightly/) acts on it; core/report/nightly renders it.
 */
import {
  currentChangePoint,
  type HistoryAnalysis,
  type SeriesAnalysis,
  type SeriesChangePoint,
} from './history-analysis.js';
import { isCanaryWorkload, type Series } from './series.js';

export type NightlyVerdict = 'regression' | 'improvement' | 'no-change';

/** A cell (one client count and metric of a workload) whose latest change point is a regression. */
export interface RegressedCell {
  series: Series;
  changePoint: SeriesChangePoint;
}

/**
 * One workload on one machine (fingerprint) as the history stands: its analysed series and the cells
 * regressed now. A workload with a regressed cell has an open regression event (one issue).
 */
export interface WorkloadStanding {
  /** "fingerprint/workload", the prefix of its series ids. */
  id: string;
  fingerprint: string;
  workload: string;
  /** Every analysed series of the workload (client counts × metrics). */
  series: SeriesAnalysis[];
  /** The cells whose latest change point is a regression, the worst first (the one a bisection takes). */
  regressed: RegressedCell[];
}

export interface NightlyJudgement {
  /** regression: some workload has an open regression event; improvement: none, but some series improved. */
  verdict: NightlyVerdict;
  /** Series whose latest change point is a regression (the cells of the events). */
  regressed: SeriesAnalysis[];
  /** Series whose latest change point is an improvement. */
  improved: SeriesAnalysis[];
  /** Every workload with at least one analysed series, by fingerprint then workload. */
  workloads: WorkloadStanding[];
  /** The open regression events: the workloads with a regressed cell. */
  events: WorkloadStanding[];
  /** Series with too few runs to be analysed yet (nothing can be said about them). */
  unanalysed: SeriesAnalysis[];
}

/** "fingerprint/workload": what one regression event (and its issue) is about. */
export function workloadId(fingerprint: string, workload: string): string {
  return `${fingerprint}/${workload}`;
}

/**
 * How bad a change is, whatever the metric's direction: |ln(after/before)|, so -20% TPS (0.22) and +25%
 * latency (0.22) weigh the same.
 */
export function severity(cp: Pick<SeriesChangePoint, 'relativeChange'>): number {
  return Math.abs(Math.log1p(cp.relativeChange));
}

/**
 * Where each series stands now, judged by its latest change point, and grouped by workload: a workload
 * with a series whose latest change point is a regression has an open regression event, its cells the
 * worst first (ties: fewer clients, then the series order).
 */
export function judgeHistory(analysis: HistoryAnalysis): NightlyJudgement {
  // A runner canary's series say nothing about PostgreSQL (night-watch.ts reads them).
  const project = analysis.series.filter((s) => !isCanaryWorkload(s.series.key.workload));
  const analysed = project.filter((s) => s.status === 'analysed');
  const latest = (kind: 'regression' | 'improvement') =>
    analysed.filter((s) => currentChangePoint(s)?.kind === kind);
  const regressed = latest('regression');
  const improved = latest('improvement');
  const byWorkload = new Map<string, WorkloadStanding>();
  for (const s of analysed) {
    const { fingerprint, workload } = s.series.key;
    const id = workloadId(fingerprint, workload);
    let standing = byWorkload.get(id);
    if (!standing) {
      standing = { id, fingerprint, workload, series: [], regressed: [] };
      byWorkload.set(id, standing);
    }
    standing.series.push(s);
    const cp = currentChangePoint(s);
    if (cp?.kind === 'regression') standing.regressed.push({ series: s.series, changePoint: cp });
  }
  const workloads = [...byWorkload.values()];
  for (const w of workloads) {
    // Stable sort: equal severities keep the series order (fewer clients first).
    w.regressed.sort((a, b) => severity(b.changePoint) - severity(a.changePoint));
  }
  const events = workloads.filter((w) => w.regressed.length > 0);
  return {
    verdict: events.length > 0 ? 'regression' : improved.length > 0 ? 'improvement' : 'no-change',
    regressed,
    improved,
    workloads,
    events,
    unanalysed: project.filter((s) => s.status !== 'analysed'),
  };
}
