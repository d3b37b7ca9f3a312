/**
 * Workloads the counts decided: a workload whose instruction counts decided a regression for every head
 * (counted-regression.ts) runs only the few timed rounds its memory needs (the pipeline's memoryRounds), at
 * its lowest client count. Its throughput cells are left undecided on purpose: no more rounds can pass the
 * head, so they say that instead of asking for rounds, and no plan warning or look is about them.
 */
import type { RunResult } from '../../results/result-types.js';
import { regressedByCounts } from '../evidence/counted-regression.js';
import { METRICS } from '../../results/metrics.js';
import type { CellComparison, RunComparison } from '../comparison-types.js';

/** The workloads whose counts decided a regression for every measured head. */
export function countsDecidedWorkloads(
  result: Pick<RunResult, 'arms' | 'instructions' | 'workloads' | 'baseline'>,
): string[] {
  if (!result.instructions || result.baseline) return [];
  const [base, ...heads] = result.arms.map((a) => a.label);
  if (!base) return [];
  return regressedByCounts(result.instructions, base, heads, Object.keys(result.workloads ?? {}));
}

const COUNTS_DECIDED_WHY =
  'not timed beyond the memory rounds: the instruction counts decided a regression, which timed rounds cannot pass';

/**
 * The comparison with the undecided cells of such workloads (their timed metrics: throughput, latency,
 * steady costs; not the counts or memory, which decide) giving that reason instead of asking for rounds.
 */
export function withCountsDecided(given: RunComparison, result: RunResult): RunComparison {
  const decided = new Set(countsDecidedWorkloads(result));
  if (decided.size === 0) return given;
  const explain = (cell: CellComparison): CellComparison => {
    if (!decided.has(cell.workload) || cell.verdict !== 'inconclusive') return cell;
    if (cell.metric === 'instructions' || METRICS[cell.metric].unit === 'bytes') return cell;
    return { ...cell, reasons: [{ code: 'counts-decided', message: COUNTS_DECIDED_WHY }], unusable: null };
  };
  return {
    ...given,
    comparisons: given.comparisons.map((arm) => ({
      ...arm,
      cells: arm.cells.map(explain),
      otherMetricCells: arm.otherMetricCells.map(explain),
      likelyRegressionCells: arm.likelyRegressionCells.filter((id) => !decidedId(arm.cells, id, decided)),
    })),
  };
}

function decidedId(cells: readonly CellComparison[], id: string, decided: ReadonlySet<string>): boolean {
  return cells.some((c) => c.id === id && decided.has(c.workload));
}
