/**
 * What this runner can resolve before a comparison runs (`pgperf plan`): per cell of the workloads as
 * planned, its noise from a store (its newest A/A calibration, else its history: runner-noise.ts), the rounds
 * the threshold needs and the smallest change the planned rounds resolve (noise-design.ts), after Holm over the
 * plan's hypotheses (design-check.ts).
 */
import type { AnalysisSettings } from '../../../core/results/result-types.js';
import { DEFAULT_POWER, DEFAULT_THRESHOLD_PCT } from '../../../core/compare/defaults.js';
import { metricOption } from '../../../core/compare/metric-option.js';
import type { Workload } from '../../../drivers/workload.js';
import { roundsOf } from '../../../drivers/common/workload-fields.js';
import type { SequentialDesign } from '../../../core/compare/analysis/adaptive.js';
import { captureEnvironment } from '../../../machine/environment.js';
import { resolveAnalysis } from '../../../core/compare/analysis/recorded-analysis.js';
import type { NoiseDesign } from '../../../core/compare/noise-design-types.js';
import { resolutionOf } from './noise-design.js';
import { designReach } from './design-check.js';
import { loadRunnerNoise, runnerId, type NoiseStore } from './runner-noise.js';

/** What the design reads noise from (the adapter opens it; noiseDesignOf closes it). */
export interface DesignStore extends NoiseStore {
  /** With credentials masked. */
  readonly description: string;
  close(): Promise<void>;
}

/** The overrides a plan is asked with: client counts, rounds and seconds per run for every workload. */
export interface WorkloadOverrides {
  clients?: number[];
  rounds?: number;
  duration?: number;
}

/** The workloads as planned: each with the overrides given (copies); a workload's own rounds stay unset. */
export function plannedWorkloads(loaded: readonly Workload[], overrides: WorkloadOverrides): Workload[] {
  return loaded.map((w) => ({
    ...w,
    clients: overrides.clients ? [...overrides.clients] : w.clients,
    ...(overrides.rounds !== undefined ? { rounds: overrides.rounds } : {}),
    duration: overrides.duration ?? w.duration,
  }));
}

/** How the planned comparison runs its rounds (rounds-choice.ts decides it as a run would). */
export interface PlannedRounds {
  /** The adaptive design a run would follow; absent: each workload's rounds, fixed. */
  adaptive?: SequentialDesign;
  /** Where the rounds come from, said as the run's plan line says it. */
  text: string;
}

/**
 * The noise plan of `workloads` on this runner: each cell's resolution at its stored noise, and the cells
 * without any. `openStore` is called once the settings are checked; the store is closed before returning.
 */
export async function noiseDesignOf(
  workloads: Workload[],
  options: { arms: number; analysis: Partial<AnalysisSettings>; rounds: PlannedRounds },
  openStore: () => Promise<DesignStore>,
): Promise<NoiseDesign> {
  const settings = resolveAnalysis(options.analysis);
  const { adaptive } = options.rounds;
  const reach = designReach({
    workloads,
    arms: options.arms,
    alpha: settings.alpha,
    ...(adaptive ? { adaptive } : {}),
    singleMetric: metricOption(settings) !== undefined,
  });
  const cells = workloads.flatMap((w) => w.clients.map((clients) => ({ workload: w.name, clients })));
  const runner = runnerId(await captureEnvironment(''));
  const store = await openStore();
  try {
    const noise = await loadRunnerNoise(store, runner, cells);
    return {
      runner,
      roundsText: options.rounds.text,
      store: store.description,
      alpha: settings.alpha,
      power: DEFAULT_POWER,
      hypotheses: reach.familySize,
      cells: noise.cells.map((n) => {
        const w = workloads.find((x) => x.name === n.workload)!;
        const r = resolutionOf(n, {
          rounds: roundsOf(w),
          ...(adaptive ? { adaptive } : {}),
          hypotheses: reach.familySize,
          alpha: settings.alpha,
          thresholdPct: options.analysis.thresholdPct ?? w.threshold ?? DEFAULT_THRESHOLD_PCT,
        });
        return { id: n.id, ...r };
      }),
      missing: noise.missing,
    };
  } finally {
    await store.close();
  }
}
