/**
 * Groups a results document's samples into the runs each analysis uses: per cell and arm, the value of one
 * metric per round, plus the failed runs counted apart. Retries of a round replace its failed attempts, so a
 * round contributes at most one value per arm (its last successful attempt).
 */
import type { MetricName } from '../results/metrics.js';
import { cellId, type CellKey, type RunResult, type Sample } from '../results/types.js';

export interface ArmRuns {
  /** Values by round; NaN where the run succeeded but did not report the metric. */
  byRound: Map<number, number>;
  /** Failed attempts (all of them, retried or not). */
  failed: number;
}

/** cellId → arm label → runs. */
export type CellRuns = Map<string, Map<string, ArmRuns>>;

export function collectCellRuns(samples: readonly Sample[], metric: MetricName): CellRuns {
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
    runs.byRound.set(s.round, s.metrics[metric] ?? Number.NaN);
  }
  return cells;
}

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
