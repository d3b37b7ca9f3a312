/**
 * After a run with a readable store: when the store knows this runner's noise for a cell and the cell's
 * threshold is below the smallest change its planned rounds resolve, the comparison says so (a warning
 * naming the cell, the threshold, the resolvable change and the rounds that would resolve it). Every
 * adapter (CLI run, the Action) gets it through the pipeline; renderers only print `warnings`.
 */
import { sequentialDesignFromJson } from '../../../core/compare/analysis/adaptive.js';
import { metricOption } from '../../../core/compare/metric-option.js';
import type { RunComparison } from '../../../core/compare/comparison-types.js';
import type { Workload } from '../../../drivers/workload.js';
import { cellId, type RunResult } from '../../../core/results/result-types.js';
import { errorMessage } from '../../../core/util/errors.js';
import type { Logger } from '../../../core/util/logger.js';
import { analysisOf } from '../../../core/compare/analysis/recorded-analysis.js';
import { resolutionOf, resolutionWarning } from './noise-design.js';
import { designReach } from './design-check.js';
import { loadRunnerNoise, runnerId, type NoiseStore } from './runner-noise.js';

/**
 * The warnings for a finished run's cells whose threshold is below what its rounds resolve on this runner.
 * Cells in `decided` are skipped: a cell the comparison decided did resolve its threshold, whatever the
 * stored noise says (history's between-job spread can overstate the paired noise of one job).
 */
export async function noiseWarnings(
  result: RunResult,
  store: NoiseStore,
  decided: ReadonlySet<string> = new Set(),
): Promise<string[]> {
  // An A/A run measures the noise; a one-arm run compares nothing; decided cells need no store read.
  const cells = result.plan.cells.filter((c) => !decided.has(cellId(c)));
  if (result.calibration || result.arms.length < 2 || cells.length === 0) return [];
  const settings = analysisOf(result);
  // Documents written before `metrics` was recorded gate on TPS alone.
  const workloads = (Object.values(result.workloads) as Workload[]).map((w) => ({
    ...w,
    metrics: w.metrics ?? ['tps'],
    clients: w.clients ?? [],
  }));
  const adaptive = result.adaptive ? sequentialDesignFromJson(result.adaptive.plan) : undefined;
  const reach = designReach({
    workloads,
    arms: result.arms.length,
    alpha: settings.alpha,
    ...(adaptive ? { adaptive } : {}),
    singleMetric: metricOption(settings) !== undefined,
  });
  const noise = await loadRunnerNoise(store, runnerId(result.environment), cells, {
    ...(result.runId !== undefined ? { exclude: result.runId } : {}),
  });
  return noise.cells
    .map((n) => {
      const w = workloads.find((x) => x.name === n.workload);
      return resolutionOf(n, {
        rounds: w?.rounds ?? result.plan.rounds,
        ...(adaptive ? { adaptive } : {}),
        hypotheses: reach.familySize,
        alpha: settings.alpha,
        thresholdPct: w?.threshold ?? settings.thresholdPct,
        // Stored base samples do not pair with head's rounds: the rank-sum test decides (analysis.ts).
        ...(result.baseline ? { test: 'mann-whitney' as const } : {}),
      });
    })
    .filter((r) => r.belowResolvable)
    .map(resolutionWarning);
}

/**
 * The comparison with noiseWarnings added, for the cells it left inconclusive, when the store can be read (a
 * store that can only be written adds none). A failing read is logged, never fatal: the run is done.
 */
export async function withNoiseWarnings(
  comparison: RunComparison,
  result: RunResult,
  store: Partial<NoiseStore> | undefined,
  logger: Logger,
): Promise<RunComparison> {
  if (!store?.list || !store.load) return comparison;
  try {
    // Decided: no head arm left the cell inconclusive.
    const cells = comparison.comparisons.flatMap((arm) => arm.cells);
    const open = new Set(cells.filter((c) => c.verdict === 'inconclusive').map((c) => c.id));
    const decided = new Set(cells.map((c) => c.id).filter((id) => !open.has(id)));
    const warnings = await noiseWarnings(result, store as NoiseStore, decided);
    if (warnings.length === 0) return comparison;
    return { ...comparison, warnings: [...comparison.warnings, ...warnings] };
  } catch (e) {
    logger.warn(`could not read this runner's noise from the store: ${errorMessage(e)}`);
    return comparison;
  }
}
