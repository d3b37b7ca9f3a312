/**
 * What a bisection is asked with, once for both adapters: the commits and the one cell (the CLI's flags,
 * or the Action's job) and how each A/B test is measured, as plain values, turned into runBisection's
 * request. Options left undefined are left out, so the request says only what was given.
 */
import { roundsOf } from '../../drivers/common/workload-fields.js';
import type { AnalysisSettings } from '../../core/results/result-types.js';
import type { SpendingFunction } from '../../core/stats/alpha-spending.js';
import type { Workload } from '../../drivers/workload.js';
import type { RepoSpec } from '../../postgres/builds/source.js';
import type { RangeNames } from './commit-range.js';
import { DEFAULT_TRIES } from './one-cell.js';
import type { BisectRequest } from './bisection.js';
import { DEFAULT_CONFIRM_ROUNDS } from '../../core/compare/analysis/confirmation.js';
import { UserError } from '../../core/util/errors.js';
import { planSizeProblem } from '../../run/plan-size.js';
import { OptionError, type OptionNames } from '../compare/options/option-error.js';

/** The commits a bisection searches and the cell it measures. */
export interface BisectRange {
  good: string;
  bad: string;
  /** What errors call good and bad (default --good, --bad). */
  names?: RangeNames;
  /** One workload with one client count (oneCell). */
  workload: Workload;
}

/** How every commit of a bisection is built and measured. */
export interface BisectMeasure {
  repo: RepoSpec;
  cacheDir: string;
  /** Extra build options for every build. */
  extraOptions: readonly string[];
  /** Rounds of the first try (default: the workload's). */
  rounds?: number;
  durationS?: number;
  /** Adaptive tests: at most maxRounds each, looks as the schedule and spending say (alpha: the analysis'). */
  adaptive?: { maxRounds: number; schedule?: number[]; spending?: SpendingFunction };
  /** Measurements per commit while the verdict is inconclusive (default DEFAULT_TRIES). */
  tries?: number;
  /** Measure the bad commit first (default true). */
  verifyBad?: boolean;
  seed?: number;
  runAs?: string;
  tmpDir?: string;
  /** The bisection's directory: one run directory per test inside. */
  outDir: string;
}

/** The options of a bisection's rounds a check may name, as each adapter spells them. */
export type BisectRoundsOption = 'rounds' | 'maxRounds' | 'timeBudget';

/** How the user bounded every A/B test of a bisection. */
export interface BisectRoundsAsked {
  rounds?: number;
  maxRounds?: number;
  timeBudgetS?: number;
}

/**
 * A bisection's rounds, checked once for both adapters before anything is built: each A/B test is bounded by
 * rounds or by max-rounds, not by both, and never by a time budget (a bisection runs several tests).
 * @throws OptionError naming the option at fault, as `names` spells it.
 */
export function checkBisectRounds(asked: BisectRoundsAsked, names: OptionNames<BisectRoundsOption>): void {
  if (asked.timeBudgetS !== undefined) {
    throw new OptionError(
      'timeBudget',
      `${names.timeBudget}: a bisection runs several A/B tests; bound each with ${names.maxRounds} N instead`,
    );
  }
  if (asked.rounds !== undefined && asked.maxRounds !== undefined) {
    throw new OptionError(
      'rounds',
      `${names.rounds} and ${names.maxRounds} both given: adaptive tests take their rounds from the looks`,
    );
  }
}

/**
 * The bisection's request. @throws UserError when its largest A/B test, the last try of a commit (twice the
 * rounds of the one before), plans more than the bounds of a plan's size allow (src/run/plan-size.ts):
 * refused before the first build rather than after hours of bisecting.
 */
export function bisectRequestOf(
  range: BisectRange,
  analysis: AnalysisSettings,
  measure: BisectMeasure,
): BisectRequest {
  const { adaptive } = measure;
  const tries = measure.tries ?? DEFAULT_TRIES;
  const lastTryRounds =
    (adaptive?.maxRounds ?? measure.rounds ?? roundsOf(range.workload)) * 2 ** (tries - 1);
  const oversized = planSizeProblem({
    workloads: [range.workload],
    arms: 2,
    rounds: lastTryRounds,
    ...(measure.durationS !== undefined ? { durationS: measure.durationS } : {}),
    confirmRounds: DEFAULT_CONFIRM_ROUNDS,
  });
  if (oversized) {
    throw new UserError(
      `bisect: the last of ${tries} tries of a commit measures ${lastTryRounds} rounds (each try twice the rounds of the one before); ${oversized}, or fewer tries`,
    );
  }
  return {
    repo: measure.repo,
    good: range.good,
    bad: range.bad,
    ...defined({ names: range.names }),
    cacheDir: measure.cacheDir,
    extraOptions: measure.extraOptions,
    workload: range.workload,
    ...defined({ rounds: measure.rounds, durationS: measure.durationS }),
    ...(adaptive
      ? {
          adaptive: {
            alpha: analysis.alpha,
            maxRounds: adaptive.maxRounds,
            ...defined({ schedule: adaptive.schedule, spending: adaptive.spending }),
          },
        }
      : {}),
    analysis,
    tries,
    ...defined({
      verifyBad: measure.verifyBad,
      seed: measure.seed,
      runAs: measure.runAs,
      tmpDir: measure.tmpDir,
    }),
    outDir: measure.outDir,
  };
}

/** `values` without its undefined entries. */
function defined<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}
