import { tInference } from './t-inference.js';
import type { WelchResult } from './welch-t.js';

/**
 * Student's two-sample t-test with pooled variance, from summary statistics: H₀ says both samples share
 * one mean (and one variance). The difference is `after.mean − before.mean`, so t > 0 when the later
 * sample is higher. df = n₁ + n₂ − 2; the confidence interval is for the difference of means.
 *
 * This is the test Hunter / Apache Otava use between adjacent segments of a series (SciPy's
 * `ttest_ind_from_stats(..., equal_var=True)`). Otava passes population standard deviations (NumPy's
 * default ddof = 0) where SciPy expects sample ones, which shrinks small segments' spread; pgperf passes
 * sample standard deviations (ddof = 1), the textbook test. Passing ddof-0 values reproduces Otava's p.
 *
 * Degenerate data never give NaN: with fewer than 3 values in all (df < 1) the test cannot run and gives
 * t = 0, p = 1 with an unbounded interval; with both spreads 0, t = 0, p = 1 for equal means, t = ±∞, p = 0
 * otherwise (tInference).
 *
 * Reference: Student (1908), Biometrika 6:1-25; pooled variance as in any textbook (e.g. Welch 1947 §1).
 *
 * Complexity: O(1) plus the t quantile's iterations. Throws: RangeError if a sample is empty, a standard
 * deviation is negative or the level is not in (0, 1).
 *
 * @example studentTTwoSample({n: 3, mean: 2, sd: 1}, {n: 3, mean: 3, sd: 1}).p // 0.2878641347266908
 */
export function studentTTwoSample(
  before: SampleSummary,
  after: SampleSummary,
  level = 0.95,
): StudentTTwoSampleResult {
  if (!(before.n >= 1 && after.n >= 1))
    throw new RangeError('a two-sample t-test needs values on both sides');
  if (!(before.sd >= 0 && after.sd >= 0)) throw new RangeError('standard deviations must be >= 0');
  if (!(level > 0 && level < 1)) throw new RangeError(`confidence level must be in (0, 1), got ${level}`);
  const difference = after.mean - before.mean;
  const df = before.n + after.n - 2;
  if (df < 1) {
    return {
      t: 0,
      df,
      p: 1,
      difference,
      se: Number.POSITIVE_INFINITY,
      lower: Number.NEGATIVE_INFINITY,
      upper: Number.POSITIVE_INFINITY,
    };
  }
  const pooledVariance = ((before.n - 1) * before.sd ** 2 + (after.n - 1) * after.sd ** 2) / df;
  const se = Math.sqrt(pooledVariance * (1 / before.n + 1 / after.n));
  return { ...tInference(difference, se, df, level), df, difference, se };
}

/** What the test needs of a sample. */
export interface SampleSummary {
  n: number;
  mean: number;
  /** Standard deviation; the sample one (ddof = 1) for the textbook test. */
  sd: number;
}

/** The same shape as Welch's result: t, df, p, the difference of means, its se and CI (df = n₁ + n₂ − 2). */
export type StudentTTwoSampleResult = WelchResult;
