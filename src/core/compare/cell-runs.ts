/**
 * Groups a results document's samples into the runs each analysis uses: per cell and arm, the value of one
 * metric per round, plus the failed runs counted apart. Retries of a round replace its failed attempts, so a
 * round contributes at most one value per arm (its last successful attempt).
 */
import { median } from 'simple-statistics';
import type { MetricName } from '../results/metrics.js';
import { cellId, type CellKey, type RunResult, type Sample } from '../results/result-types.js';

/**
 * What one run contributes: 'final' is the metric as the client reported it for the whole run;
 * 'progress-median' (tps only) is the median of the per-second progress TPS after the first second, a
 * run value that ignores a stalled second or a burst. notes/stats.md compares the two on real captures.
 */
export type RunValue = 'final' | 'progress-median';

export interface ArmRuns {
  /** Values by round; NaN where the run succeeded but did not report the metric. */
  byRound: Map<number, number>;
  /** Failed attempts (all of them, retried or not). */
  failed: number;
}

/** cellId → arm label → runs. */
export type CellRuns = Map<string, Map<string, ArmRuns>>;

export function collectCellRuns(
  samples: readonly Sample[],
  metric: MetricName,
  value: RunValue = 'final',
): CellRuns {
  const cells: CellRuns = new Map();
  const attempts = new Map<string, number>(); // last attempt kept per cell/arm/round
  for (const s of samples) {
    const id = cellId(s);
    let arms = cells.get(id);
    if (!arms) cells.set(id, (arms = new Map()));
    let runs = arms.get(s.arm);
    if (!runs) arms.set(s.arm, (runs = { byRound: new Map(), failed: 0 }));
    if (s.status !== 'ok') {
      runs.failed++;
      continue;
    }
    const key = `${id}\u0000${s.arm}\u0000${s.round}`;
    if ((attempts.get(key) ?? -Infinity) > s.attempt) continue;
    attempts.set(key, s.attempt);
    runs.byRound.set(s.round, runValue(s, metric, value));
  }
  return cells;
}

/**
 * A run's value: the reported metric, or for tps with 'progress-median' the median of the progress TPS
 * after the first second (falling back to the reported TPS when fewer than PROGRESS_MIN_POINTS remain).
 */
export function runValue(sample: Sample, metric: MetricName, value: RunValue = 'final'): number {
  if (value === 'progress-median' && metric === 'tps') {
    const tps = sample.progress.filter((p) => p.t > PROGRESS_SKIP_SECONDS).map((p) => p.tps);
    if (tps.length >= PROGRESS_MIN_POINTS) return median(tps);
  }
  return sample.metrics[metric] ?? Number.NaN;
}

/** The first second of a run ramps up (connections, caches): its progress point is skipped. */
export const PROGRESS_SKIP_SECONDS = 1;
/** Fewer progress points than this make no steadier median than the run's total. */
export const PROGRESS_MIN_POINTS = 3;

/** Every cell of the document: the plan's cells in declaration order, then any others the samples contain. */
export function documentCells(result: RunResult): CellKey[] {
  const seen = new Set<string>();
  const cells: CellKey[] = [];
  for (const c of [...result.plan.cells, ...result.samples]) {
    const id = cellId(c);
    if (seen.has(id)) continue;
    seen.add(id);
    cells.push({ workload: c.workload, clients: c.clients });
  }
  return cells;
}

/** The values of an arm's runs, in round order (empty if the arm never ran the cell). */
export function runValues(runs: ArmRuns | undefined): number[] {
  if (!runs) return [];
  return [...runs.byRound.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v);
}
