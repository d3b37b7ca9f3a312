/**
 * What this runner can resolve: per cell, from its noise (runner-noise.ts), the rounds a threshold needs and
 * the smallest change the planned rounds resolve with 80% power after Holm over the plan's hypotheses. Used
 * by `pgperf plan` (before a run) and by the pipeline (after a run, as a warning in the comparison when the
 * requested threshold is below what the run could resolve).
 */
import type { SequentialDesign } from '../../../core/compare/analysis/adaptive.js';
import { DEFAULT_POWER } from '../../../core/compare/defaults.js';
import { designPower, resolvableChangePct, roundsToResolve } from '../../../core/compare/power.js';
import type { PrimaryTest } from '../../../core/compare/comparison-types.js';
import type { CellResolution, NoiseEstimate } from '../../../core/compare/noise-design-types.js';
import { planningText } from '../../../core/report/noise-words.js';

export interface ResolutionInput {
  /** Planned rounds (a fixed design), or the adaptive design (its budget and looks). */
  rounds: number;
  adaptive?: SequentialDesign;
  /** Hypotheses Holm adjusts over (head arms × cells × gated metrics). */
  hypotheses: number;
  alpha: number;
  thresholdPct: number;
  power?: number;
  test?: PrimaryTest;
}

/** The resolution of one cell at its noise: designPower for an adaptive design, one analysis at α otherwise. */
export function resolutionOf(noise: NoiseEstimate, input: ResolutionInput): CellResolution {
  const power = input.power ?? DEFAULT_POWER;
  const test = input.test ?? input.adaptive?.test ?? 'signed-rank';
  let resolvablePct: number;
  let recommendedRounds: number | null;
  if (input.adaptive) {
    const cell = { workload: noise.workload, clients: noise.clients };
    const p = designPower({
      plan: input.adaptive,
      hypotheses: input.hypotheses,
      cells: [
        { cell, noise: { cell, rounds: noise.points, pairedCvPct: noise.planningCvPct, runCvPct: null } },
      ],
      thresholdPct: input.thresholdPct,
      power,
    }).cells[0]!;
    resolvablePct = p.resolvablePct;
    recommendedRounds = p.roundsForThreshold;
  } else {
    const common = {
      test,
      level: input.alpha,
      hypotheses: input.hypotheses,
      pairedCvPct: noise.planningCvPct,
      power,
    };
    resolvablePct = resolvableChangePct({ ...common, rounds: input.rounds });
    recommendedRounds = roundsToResolve({ ...common, thresholdPct: input.thresholdPct });
  }
  const rounds = input.adaptive?.maxRounds ?? input.rounds;
  return {
    noise,
    rounds,
    thresholdPct: input.thresholdPct,
    resolvablePct,
    recommendedRounds,
    belowResolvable: input.thresholdPct < resolvablePct,
  };
}

/** The comparison warning of a cell whose threshold is below what its rounds resolve. */
export function resolutionWarning(r: CellResolution): string {
  const what = Number.isFinite(r.resolvablePct)
    ? `the smallest change this runner resolves with ${r.rounds} rounds (${r.resolvablePct.toFixed(1)}% at ${planningText(r.noise)})`
    : `what this runner resolves with ${r.rounds} rounds (none: they cannot reach significance; ${planningText(r.noise)})`;
  return (
    `${r.noise.id}: the ${r.thresholdPct}% threshold is below ${what}; ` +
    (r.recommendedRounds === null
      ? 'no practical number of rounds resolves it: raise the threshold'
      : `about ${r.recommendedRounds} rounds would resolve it`)
  );
}
