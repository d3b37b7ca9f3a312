/**
 * Which rounds a comparison runs, one rule for the CLI and the Action:
 *
 * - rounds someone gave are fixed: the rounds option (--rounds, input 'rounds'), or any workload of the run
 *   that sets `rounds` in its file (each workload then runs its own, DEFAULT_ROUNDS where it sets none);
 * - a round cap or a time budget (--max-rounds, --time-budget) asks for adaptive rounds, as given;
 * - otherwise the timed rounds are adaptive by default: the default looks (DEFAULT_SCHEDULE, at most its last
 *   look's rounds) within DEFAULT_TIME_BUDGET_S of measurement, decided cells stopping early;
 * - the opt-out (--fixed-rounds, input 'adaptive' false), a stored baseline (compared once: nothing to look
 *   at between rounds) and a shard of a matrix (every shard runs the plan's rounds) keep fixed rounds.
 *
 * Refusals are OptionErrors in the adapter's spelling.
 */
import type { Workload } from '../../../drivers/workload.js';
import type { RoundsOrigin } from '../../../run/rounds-origin.js';
import {
  adaptiveDesignOf,
  asksAdaptive,
  type AdaptiveDesign,
  type AdaptiveOption,
  type AdaptiveOptions,
} from './adaptive-design.js';
import { OptionError, type OptionNames } from './option-error.js';

/** The options the rule may name: the adaptive ones, the pair that asks for them, the rounds and the opt-out. */
export type RoundsOption = AdaptiveOption | 'adaptive' | 'rounds' | 'fixedRounds' | 'baseline';

export interface RoundsAsked {
  /** Every workload's rounds. */
  rounds?: number;
  adaptive: AdaptiveOptions;
  /** The opt-out of the adaptive default. */
  fixedRounds?: boolean;
  /** The workloads as loaded (their own `rounds` where their file sets it). */
  workloads: readonly Pick<Workload, 'name' | 'rounds'>[];
  baseline: 'same-job' | 'stored';
  sharded: boolean;
  alpha: number;
  /** Estimated seconds of one round with every cell open, for the check of a given time budget. */
  roundS: number;
}

export interface RoundsChoice {
  /** The adaptive design, when the rounds are adaptive. */
  adaptive?: AdaptiveDesign;
  /** Where the rounds come from, for the run's plan line. */
  origin: RoundsOrigin;
}

/**
 * The rounds of a comparison by the rule above.
 * @throws OptionError naming the option at fault, as `names` spells it.
 */
export function roundsChoiceOf(asked: RoundsAsked, names: OptionNames<RoundsOption>): RoundsChoice {
  if (asksAdaptive(asked.adaptive)) {
    if (asked.rounds !== undefined) {
      throw new OptionError(
        'rounds',
        `${names.rounds} and ${names.adaptive} both given: adaptive runs take their rounds from the looks`,
      );
    }
    if (asked.fixedRounds) {
      throw new OptionError(
        'fixedRounds',
        `${names.fixedRounds} and ${names.adaptive} both given: fixed rounds or adaptive ones, give one`,
      );
    }
    if (asked.baseline === 'stored') {
      // A stored baseline is compared once: its samples pair with no round of head, so looks test nothing.
      throw new OptionError(
        'baseline',
        `${names.baseline} stored and ${names.adaptive} both given: a stored baseline is compared once, give ${names.rounds}`,
      );
    }
    return { adaptive: adaptiveDesignOf(asked.adaptive, asked.alpha, asked.roundS, names)!, origin: {} };
  }
  const fixed = fixedBecause(asked, names);
  if (fixed === undefined) {
    const adaptive = adaptiveDesignOf(asked.adaptive, asked.alpha, asked.roundS, names, true)!;
    return { adaptive, origin: { optOut: names.fixedRounds } };
  }
  const { schedule, spending, passAlpha } = asked.adaptive;
  if (schedule || spending || passAlpha !== undefined) {
    const option = schedule ? 'schedule' : spending ? 'spending' : 'passAlpha';
    throw new OptionError(
      option,
      `${names[option]} shapes adaptive rounds, and the rounds here are fixed (${fixed.why}): remove it` +
        (canAskAdaptive(asked)
          ? `, or ask for adaptive rounds with ${names.maxRounds} N or ${names.timeBudget}`
          : ''),
    );
  }
  return { origin: fixed.origin };
}

/** Why the rounds are fixed (undefined: they are adaptive by default), and the origin the plan line says. */
function fixedBecause(
  asked: RoundsAsked,
  names: OptionNames<RoundsOption>,
): { why: string; origin: RoundsOrigin } | undefined {
  if (asked.rounds !== undefined) {
    return { why: `${names.rounds} ${asked.rounds}`, origin: { given: names.rounds } };
  }
  const because = (why: string) => ({ why, origin: { fixedBecause: why } });
  if (asked.fixedRounds) return because(names.fixedRounds);
  if (asked.baseline === 'stored') return because('a stored baseline is compared once');
  if (asked.sharded) return because('every shard of a matrix runs the same rounds');
  const own = asked.workloads.filter((w) => w.rounds !== undefined);
  if (own.length > 0) {
    const which = own.map((w) => w.name).join(', ');
    return {
      why: `${own.length === 1 ? `workload ${which} sets` : `workloads ${which} set`} rounds`,
      origin: {},
    };
  }
  return undefined;
}

/** Whether a round cap or a time budget could be added without a conflict. */
function canAskAdaptive(asked: RoundsAsked): boolean {
  return asked.rounds === undefined && !asked.fixedRounds && asked.baseline !== 'stored';
}
