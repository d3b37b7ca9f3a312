/**
 * The adaptive-rounds flags of `run` and `bisect` (--max-rounds, --time-budget, --schedule, --spending,
 * --pass-alpha) and run's --fixed-rounds: parsed and checked before anything starts, into the plan the run
 * loop follows. A run's rounds are adaptive by default where no rounds are given (rounds-choice.ts); a
 * bisection's only when --max-rounds or --time-budget is given.
 */
import { Command, InvalidArgumentError } from 'commander';
import { DEFAULT_SCHEDULE } from '../../core/compare/analysis/adaptive.js';
import { DEFAULT_PASS_ALPHA, DEFAULT_ROUNDS, DEFAULT_TIME_BUDGET_S } from '../../core/compare/defaults.js';
import { SPENDING_FUNCTIONS, type SpendingFunction } from '../../core/stats/alpha-spending.js';
import { parseDurationS } from '../../core/util/duration.js';
import { ROUNDS, TIME_BUDGET_S, rangeText, withinBound } from '../../core/bounds.js';
import {
  adaptiveDesignOf,
  type AdaptiveDesign,
  type AdaptiveOption,
  type AdaptiveOptions,
} from '../../flows/compare/options/adaptive-design.js';
import type { OptionNames } from '../../flows/compare/options/option-error.js';
import { positiveInt } from './flag-parsers.js';

export interface AdaptiveFlags {
  maxRounds?: number;
  timeBudget?: number;
  schedule?: number[];
  spending?: SpendingFunction;
  passAlpha?: number;
}

/** --fixed-rounds, in `run` and `plan`. */
export const FIXED_ROUNDS_HELP =
  `fixed rounds instead of the adaptive default: the workloads' own, else ${DEFAULT_ROUNDS} ` +
  `(rounds are adaptive when neither --rounds nor a workload's rounds: is given)`;

/** The run's opt-out of adaptive rounds by default. */
export function addFixedRoundsOption(command: Command): Command {
  return command.option('--fixed-rounds', FIXED_ROUNDS_HELP, false);
}

export function addAdaptiveOptions(command: Command): Command {
  return command
    .option(
      '--max-rounds <n>',
      `adaptive rounds: look after blocks of rounds, stop decided cells, at most N rounds (${rangeText(ROUNDS)}; ` +
        `run: the default, at most ${DEFAULT_SCHEDULE.at(-1)}, where no rounds are given)`,
      positiveInt('--max-rounds', ROUNDS),
    )
    .option(
      '--time-budget <duration>',
      `adaptive rounds within this time of measurement (e.g. 45m, 1h, 900s; at most ${TIME_BUDGET_S.max / 86_400} days; ` +
        `run: ${DEFAULT_TIME_BUDGET_S / 60}m by default, never before the first look)`,
      parseDuration,
    )
    .option(
      '--schedule <rounds>',
      `looks, cumulative rounds up to ${ROUNDS.max} (default ${DEFAULT_SCHEDULE.join(',')})`,
      parseSchedule,
    )
    .option('--spending <name>', `alpha-spending function: ${SPENDING_FUNCTIONS.join(', ')}`, parseSpending)
    .option(
      '--pass-alpha <a>',
      `one-sided alpha per cell for passing ("not worse by the threshold"), spent over the looks (default ${DEFAULT_PASS_ALPHA})`,
      parsePassAlpha,
    );
}

/** How the CLI spells the adaptive options (src/flows/compare/options/adaptive-design.ts words its refusals with it). */
export const ADAPTIVE_FLAG_NAMES: OptionNames<AdaptiveOption> = {
  maxRounds: '--max-rounds',
  timeBudget: '--time-budget',
  schedule: '--schedule',
  spending: '--spending',
  passAlpha: '--pass-alpha',
};

/** The flags as the adaptive options of a flow. */
export function adaptiveOptionsOf(flags: AdaptiveFlags): AdaptiveOptions {
  return {
    ...(flags.maxRounds !== undefined ? { maxRounds: flags.maxRounds } : {}),
    ...(flags.timeBudget !== undefined ? { timeBudgetS: flags.timeBudget } : {}),
    ...(flags.schedule ? { schedule: flags.schedule } : {}),
    ...(flags.spending ? { spending: flags.spending } : {}),
    ...(flags.passAlpha !== undefined ? { passAlpha: flags.passAlpha } : {}),
  };
}

/**
 * The adaptive plan, or undefined when neither --max-rounds nor --time-budget is given. `roundS` is the
 * estimated length of one round with every cell open, for the time-budget check.
 */
export function adaptiveFromFlags(
  flags: AdaptiveFlags,
  alpha: number,
  roundS: number,
): AdaptiveDesign | undefined {
  return adaptiveDesignOf(adaptiveOptionsOf(flags), alpha, roundS, ADAPTIVE_FLAG_NAMES);
}

export function parseDuration(value: string): number {
  const seconds = parseDurationS(value);
  if (seconds === undefined) {
    throw new InvalidArgumentError(
      `--time-budget must be a positive duration: a number of seconds, or with the unit s, m, min or h ` +
        `(e.g. 45m, 1.5h, 900s), got '${value}'`,
    );
  }
  if (seconds > TIME_BUDGET_S.max) {
    throw new InvalidArgumentError(
      `--time-budget must be at most ${TIME_BUDGET_S.max} s (${TIME_BUDGET_S.max / 86_400} days), got '${value}'`,
    );
  }
  return seconds;
}

function parseSchedule(value: string): number[] {
  const rounds = value.split(',').map((v) => Number(v.trim()));
  if (!rounds.every((r, i) => Number.isInteger(r) && r > 0 && (i === 0 || r > rounds[i - 1]!))) {
    throw new InvalidArgumentError(
      `--schedule must be comma-separated, strictly increasing whole round counts >= 1 ` +
        `(e.g. ${DEFAULT_SCHEDULE.join(',')}), got '${value}'`,
    );
  }
  if (!rounds.every((r) => withinBound(r, ROUNDS))) {
    throw new InvalidArgumentError(
      `--schedule looks must be round counts ${rangeText(ROUNDS)}, got '${value}'`,
    );
  }
  return rounds;
}

function parsePassAlpha(value: string): number {
  const a = Number(value);
  if (value.trim() === '' || !(a > 0 && a < 0.5)) {
    throw new InvalidArgumentError(
      `--pass-alpha must be a number between 0 and 0.5 (exclusive), got '${value}'`,
    );
  }
  return a;
}

function parseSpending(value: string): SpendingFunction {
  if (!(SPENDING_FUNCTIONS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(
      `--spending must be one of ${SPENDING_FUNCTIONS.join(', ')}, got '${value}'`,
    );
  }
  return value as SpendingFunction;
}
