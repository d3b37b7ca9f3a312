/**
 * The analysis settings of a run (α, threshold, metric): resolved once from the adapter's flags or inputs,
 * recorded in results.json, and read back from there by every later analysis, so the PR comment, the power
 * check before the run and `pgperf compare` on the artifact all judge with the same numbers.
 */
import { sequentialDesignFromJson } from './adaptive.js';
import { compareRun } from './compare-run.js';
import { withInstructionCells } from './instruction-verdict.js';
import { withMemoryCells } from './memory-verdict.js';
import { withSameCompiledCode } from './same-code.js';
import { untimedWorkloadsOf, withUnexecutedCode } from './unexecuted-code.js';
import { countsDecidedWorkloads, withCountsDecided } from './counts-decided.js';
import { DEFAULT_STEADY_PASS } from '../evidence/steady-evidence.js';
import { DEFAULT_ALPHA, DEFAULT_THRESHOLD_PCT } from '../defaults.js';
import type { CellComparison, RunComparison } from '../comparison-types.js';
import { metricOption } from '../metric-option.js';
import { PRIMARY_METRIC } from '../../results/metrics.js';
import type { AnalysisSettings, RunResult, StoredBaselineInfo } from '../../results/result-types.js';

/** The settings with defaults filled in (DEFAULT_ALPHA, DEFAULT_THRESHOLD_PCT, PRIMARY_METRIC). */
export function resolveAnalysis(given: Partial<AnalysisSettings> = {}): AnalysisSettings {
  return {
    alpha: given.alpha ?? DEFAULT_ALPHA,
    thresholdPct: given.thresholdPct ?? DEFAULT_THRESHOLD_PCT,
    metric: given.metric ?? PRIMARY_METRIC,
    steadyPass: given.steadyPass ?? DEFAULT_STEADY_PASS,
    ...(given.noiseFloors ? { noiseFloors: given.noiseFloors } : {}),
  };
}

/** The settings a document was recorded with, each overridden where `overrides` names it. */
export function analysisOf(result: RunResult, overrides: Partial<AnalysisSettings> = {}): AnalysisSettings {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return resolveAnalysis({ ...result.analysis, ...defined });
}

/** The comparison of a results document with its recorded analysis settings (or the overrides). */
export function analyse(result: RunResult, overrides: Partial<AnalysisSettings> = {}): RunComparison {
  const settings = analysisOf(result, overrides);
  const lastLook = result.adaptive?.looks.at(-1)?.look;
  // Workloads the pipeline gave no timed round (none of the changed code ran there): decided below.
  const untimed = untimedWorkloadsOf(result).filter((w) => !result.samples.some((s) => s.workload === w));
  // Workloads the counts decided ran memory rounds only: no look or plan warning is about them either.
  const quiet = [...new Set([...untimed, ...countsDecidedWorkloads(result)])];
  const timed = compareRun(result, {
    alpha: settings.alpha,
    thresholdPct: settings.thresholdPct,
    // A threshold asked for now wins over the workloads' own (and the report names those it set aside).
    ...(overrides.thresholdPct !== undefined ? { thresholdForAll: true } : {}),
    steadyPass: settings.steadyPass ?? DEFAULT_STEADY_PASS,
    ...(quiet.length > 0 ? { untimed: quiet } : {}),
    // One metric for every cell only when one was asked for; else each workload's `metrics` gate its cells.
    ...(metricOption(settings, overrides) ? { metric: metricOption(settings, overrides)! } : {}),
    // An adaptive run is judged at the last look it took, so the report shows the verdicts the run acted
    // on; one stopped before its first look took no look, and a single analysis at alpha is valid.
    ...(lastLook
      ? { adaptive: { plan: sequentialDesignFromJson(result.adaptive!.plan), look: lastLook } }
      : {}),
    // Stored base samples were not measured in the rounds of head: rounds do not pair, the rank-sum test decides.
    ...(result.baseline ? { test: 'unpaired' as const } : {}),
  });
  // The instruction mode's cells (own rule, one round) join the other gated metrics of each arm.
  const counted = withInstructionCells(timed, result);
  // Memory that moved beyond its floors gates by default, unless one metric was asked for every cell.
  const withInstructions = metricOption(settings, overrides) ? counted : withMemoryCells(counted, result);
  // A head with base's compiled code and settings was not measured: its cells are decided by that.
  const sameCode = withSameCompiledCode(withInstructions, result);
  // A workload that ran none of a head's changed code was not timed for it: its cells are decided by that.
  const decided = withCountsDecided(withUnexecutedCode(sameCode, result), result);
  const forAll =
    overrides.thresholdPct !== undefined
      ? { ...decided, thresholdForAll: { setAside: setAsideThresholds(result, settings.thresholdPct) } }
      : decided;
  // Every report says which statements' plans changed, when the run took them.
  const withPlans = result.plans ? { ...forAll, plans: result.plans } : forAll;
  // Every report says what the answer cost, when the run recorded it.
  const planned = result.cost ? { ...withPlans, cost: result.cost } : withPlans;
  // And what the gate's errors were on this runner, when it was calibrated (gate-record.ts).
  const stated = result.gateRecord ? { ...planned, gateRecord: result.gateRecord } : planned;
  return result.baseline ? withStoredBaseline(stated, result.baseline) : stated;
}

/** The workloads whose own threshold differs from `pct`, with it: what a threshold given for all sets aside. */
function setAsideThresholds(
  result: RunResult,
  pct: number,
): Array<{ workload: string; thresholdPct: number }> {
  return Object.entries(result.workloads ?? {}).flatMap(([workload, spec]) => {
    const own = (spec as { threshold?: unknown } | undefined)?.threshold;
    return typeof own === 'number' && own !== pct ? [{ workload, thresholdPct: own }] : [];
  });
}

/**
 * A comparison against a stored baseline: a drifted sentinel (with `onDrift: 'inconclusive'`) makes every
 * verdict inconclusive, the cells' too (so no surface can read a regression from them), and says why; cells
 * keep their statistics.
 */
function withStoredBaseline(c: RunComparison, baseline: StoredBaselineInfo): RunComparison {
  if (baseline.sentinel.status !== 'drifted') return c;
  const reason = baseline.sentinel.reason;
  const drifted = (cell: CellComparison): CellComparison => ({
    ...cell,
    verdict: 'inconclusive',
    reasons: [{ code: 'baseline-drifted', message: reason }],
  });
  return {
    ...c,
    verdict: 'inconclusive',
    decidingArms: [],
    likelyRegressions: [],
    comparisons: c.comparisons.map((a) => ({
      ...a,
      verdict: 'inconclusive',
      decidingCells: [],
      likelyRegressionCells: [],
      cells: a.cells.map(drifted),
      otherMetricCells: a.otherMetricCells.map(drifted),
      workloadVerdicts: Object.fromEntries(Object.keys(a.workloadVerdicts).map((w) => [w, 'inconclusive'])),
    })),
    warnings: c.warnings.includes(reason) ? c.warnings : [reason, ...c.warnings],
  };
}
