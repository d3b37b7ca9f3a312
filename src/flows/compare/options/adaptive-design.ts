/**
 * The adaptive design of a comparison (a bisection's tests too), from the options the adapters read:
 * adaptive is on when a round cap (max rounds) or a time budget is given, or by default (rounds-choice.ts
 * says when: then at most the last look's rounds within DEFAULT_TIME_BUDGET_S); the looks' schedule, the
 * alpha-spending function and the pass alpha shape it. Checked before anything starts; refusals are
 * OptionErrors in the adapter's spelling.
 */
import {
  DEFAULT_SCHEDULE,
  designSequential,
  type SequentialDesign,
} from '../../../core/compare/analysis/adaptive.js';
import { DEFAULT_TIME_BUDGET_S } from '../../../core/compare/defaults.js';
import type { SpendingFunction } from '../../../core/stats/alpha-spending.js';
import { errorMessage } from '../../../core/util/errors.js';
import { OptionError, type OptionNames } from './option-error.js';

export type AdaptiveOption = 'maxRounds' | 'timeBudget' | 'schedule' | 'spending' | 'passAlpha';

export interface AdaptiveOptions {
  /** At most this many rounds (looks after blocks of rounds; decided cells stop). */
  maxRounds?: number;
  /** Adaptive rounds within this many seconds of measurement. */
  timeBudgetS?: number;
  /** The looks, cumulative rounds (default DEFAULT_SCHEDULE). */
  schedule?: number[];
  spending?: SpendingFunction;
  /** The pass question's one-sided alpha per cell, spent over the looks. */
  passAlpha?: number;
}

export interface AdaptiveDesign {
  plan: SequentialDesign;
  timeBudgetS?: number;
  /**
   * Adaptive by default, not asked for: the default time budget never stops the run before its first look
   * (a round of many cells can be too long for it to reach one).
   */
  byDefault?: true;
}

/** Whether the options ask for adaptive rounds themselves (a round cap or a time budget). */
export function asksAdaptive(options: AdaptiveOptions): boolean {
  return options.maxRounds !== undefined || options.timeBudgetS !== undefined;
}

/**
 * The adaptive plan, or undefined when neither a round cap nor a time budget is given and adaptive rounds
 * are not the default (`byDefault`). By default, what is not given is the default: the schedule's last look
 * as the cap, DEFAULT_TIME_BUDGET_S as the budget. `roundS` is the estimated length of one round with every
 * cell open, for the check of a given time budget (0: no check).
 * @throws OptionError naming the option at fault.
 */
export function adaptiveDesignOf(
  options: AdaptiveOptions,
  alpha: number,
  roundS: number,
  names: OptionNames<AdaptiveOption>,
  byDefault = false,
): AdaptiveDesign | undefined {
  const asked = asksAdaptive(options);
  if (!asked && !byDefault) {
    if (options.schedule || options.spending || options.passAlpha !== undefined) {
      throw new OptionError(
        options.schedule ? 'schedule' : options.spending ? 'spending' : 'passAlpha',
        `${names.schedule}, ${names.spending} and ${names.passAlpha} shape adaptive rounds: give ${names.maxRounds} N or ${names.timeBudget} too`,
      );
    }
    return undefined;
  }
  let plan: SequentialDesign;
  try {
    plan = designSequential({
      alpha,
      ...(options.schedule ? { schedule: options.schedule } : {}),
      ...(options.spending ? { spending: options.spending } : {}),
      ...(options.passAlpha !== undefined ? { passAlpha: options.passAlpha } : {}),
      ...(options.maxRounds !== undefined ? { maxRounds: options.maxRounds } : {}),
    });
  } catch (e) {
    if (options.maxRounds !== undefined && /maxRounds/.test(errorMessage(e))) {
      const schedule = options.schedule ?? DEFAULT_SCHEDULE;
      throw new OptionError(
        'maxRounds',
        `${names.maxRounds} must be at least the first look, ${schedule[0]} rounds ` +
          `(${options.schedule ? '' : 'the default '}${names.schedule} ${schedule.join(',')}), got ${options.maxRounds}`,
      );
    }
    throw new OptionError('schedule', `${names.schedule}: ${errorMessage(e)}`);
  }
  if (!asked) return { plan, timeBudgetS: DEFAULT_TIME_BUDGET_S, byDefault: true };
  const budget = options.timeBudgetS;
  if (budget !== undefined && budget < roundS) {
    throw new OptionError(
      'timeBudget',
      `${names.timeBudget} ${budget} s is less than one round (about ${Math.ceil(roundS)} s for every cell and arm); give at least ${Math.ceil(plan.schedule[0]! * roundS)} s for the first look`,
    );
  }
  return { plan, ...(budget !== undefined ? { timeBudgetS: budget } : {}) };
}
