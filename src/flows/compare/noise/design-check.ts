/**
 * Refuses a plan that cannot reach significance at all, before anything is built or measured: with Holm over
 * every hypothesis (head arm × cell × gated metric), the smallest p the planned rounds can give, times the
 * family size, must be below α for at least one cell. `pgperf run --force` (Action input `force`) runs it
 * anyway (the run loop then only warns).
 */
import { minPFor, minRoundsFor } from '../../../core/compare/power.js';
import type { SequentialDesign } from '../../../core/compare/analysis/adaptive.js';
import { formatP } from '../../../core/compare/format.js';
import type { Workload } from '../../../drivers/workload.js';
import { roundsOf } from '../../../drivers/common/workload-fields.js';
import { UserError } from '../../../core/util/errors.js';

export interface DesignReachInput {
  workloads: readonly Workload[];
  /** Arms compared (the baseline included). */
  arms: number;
  alpha: number;
  /** Replaces every workload's rounds (--rounds); else each workload's own, DEFAULT_ROUNDS when unset. */
  rounds?: number;
  /** An adaptive design, by default or asked for: its last look (maxRounds at its nominal level) is the best
   * it can do (a time budget may stop it sooner: said by the run, not refused here). */
  adaptive?: SequentialDesign;
  /** When `metric` is given (--metric), one metric per cell; else each workload's `metrics`. */
  singleMetric?: boolean;
}

export interface DesignReach {
  reachable: boolean;
  /** Hypotheses in Holm's family. */
  familySize: number;
  /** The level the last analysis tests at (α, or an adaptive design's last look). */
  level: number;
  workloads: Array<{ name: string; cells: string[]; rounds: number; minP: number; minAdjustedP: number }>;
  /** Fewest rounds for which the family can reach the level at all. */
  minRounds: number;
}

export function designReach(input: DesignReachInput): DesignReach {
  const heads = Math.max(0, input.arms - 1);
  const metricsOf = (w: Workload) => (input.singleMetric ? 1 : w.metrics.length);
  const familySize = heads * input.workloads.reduce((s, w) => s + w.clients.length * metricsOf(w), 0);
  const level = input.adaptive ? input.adaptive.lookAlpha.at(-1)! : input.alpha;
  const workloads = input.workloads.map((w) => {
    const rounds = input.adaptive?.maxRounds ?? input.rounds ?? roundsOf(w);
    const minP = minPFor('signed-rank', rounds);
    return {
      name: w.name,
      cells: w.clients.map((c) => `${w.name}@${c}`),
      rounds,
      minP,
      minAdjustedP: Math.min(1, familySize * minP),
    };
  });
  return {
    reachable: heads === 0 || workloads.some((w) => w.minAdjustedP < level),
    familySize,
    level,
    workloads,
    minRounds: minRoundsFor('signed-rank', familySize, level),
  };
}

/** Throws a UserError naming the cells, the rounds and the smallest achievable p when nothing can reach α. */
export function refuseUnreachablePlan(input: DesignReachInput): void {
  const r = designReach(input);
  if (r.reachable) return;
  const what = r.workloads
    .map(
      (w) =>
        `${w.name} (${w.cells.join(', ')}): ${w.rounds} rounds, smallest p ${formatP(w.minP)} x ${r.familySize} = ${formatP(w.minAdjustedP)}`,
    )
    .join('; ');
  const level = input.adaptive ? `the last look's level ${formatP(r.level)}` : `alpha ${formatP(r.level)}`;
  throw new UserError(
    `the plan cannot reach significance in any cell: Holm over ${r.familySize} hypotheses (head arms x cells x gated metrics); ` +
      `${what}; each is >= ${level}. Plan at least ${r.minRounds} rounds (${input.adaptive ? '--max-rounds' : "--rounds, or the workloads' rounds; or adaptive rounds with --max-rounds"}), ` +
      `fewer cells, or pass --force (Action input force: 'true') to run anyway`,
  );
}
