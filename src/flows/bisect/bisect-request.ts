/**
 * What a bisection is asked with, once for both adapters: the commits and the one cell (the CLI's flags,
 * or the Action's job) and how each A/B test is measured, as plain values, turned into runBisection's
 * request. Options left undefined are left out, so the request says only what was given.
 */
import type { AnalysisSettings } from '../../core/results/result-types.js';
import type { SpendingFunction } from '../../core/stats/alpha-spending.js';
import type { Workload } from '../../drivers/workload.js';
import type { RepoSpec } from '../../postgres/builds/source.js';
import type { RangeNames } from './commit-range.js';
import { DEFAULT_TRIES } from './one-cell.js';
import type { BisectRequest } from './bisection.js';

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

export function bisectRequestOf(
  range: BisectRange,
  analysis: AnalysisSettings,
  measure: BisectMeasure,
): BisectRequest {
  const { adaptive } = measure;
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
    tries: measure.tries ?? DEFAULT_TRIES,
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
