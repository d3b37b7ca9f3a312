import { mean, sampleVariance } from 'simple-statistics';
import { tInference } from './t-inference.js';

/**
 * Welch's unequal-variance t-test of head against base (t > 0 when head's mean is higher), with the
 * Welch–Satterthwaite degrees of freedom left unrounded and a confidence interval for the difference of
 * means. On ln values the interval, exponentiated, is one for the ratio of geometric means.
 *
 * simple-statistics' `tTestTwoSample` is the pooled-variance Student statistic and returns neither df nor
 * p, hence this function. It matches SciPy's `ttest_ind(head, base, equal_var=False)`.
 *
 * Degenerate data never give NaN: if both variances are 0, df is taken as m + n − 2 and the result is
 * t = 0, p = 1 for equal means, t = ±∞, p = 0 otherwise, with a zero-width interval.
 *
 * Reference: Welch (1947), Biometrika 34:28-35; Satterthwaite (1946), Biometrics Bulletin 2:110-114.
 *
 * Complexity: O(m + n). Throws: RangeError if an arm has fewer than 2 values or 0 < level < 1 fails.
 *
 * @example welchT([1, 2, 3], [2, 3, 4]).p // 0.2878641347266906 (df = 4)
 */
export function welchT(base: readonly number[], head: readonly number[], level = 0.95): WelchResult {
  if (base.length < 2 || head.length < 2) throw new RangeError("Welch's t needs at least 2 values per arm");
  if (!(level > 0 && level < 1)) throw new RangeError(`confidence level must be in (0, 1), got ${level}`);
  const vb = sampleVariance(base) / base.length;
  const vh = sampleVariance(head) / head.length;
  const difference = mean(head) - mean(base);
  const se = Math.sqrt(vb + vh);
  // Both variances 0: the Welch-Satterthwaite df is 0/0; take the pooled df, as the interval has no width.
  const df =
    se === 0
      ? base.length + head.length - 2
      : (vb + vh) ** 2 / (vb ** 2 / (base.length - 1) + vh ** 2 / (head.length - 1));
  return { ...tInference(difference, se, df, level), df, difference, se };
}

export interface WelchResult {
  /** (mean head − mean base)/se. */
  t: number;
  /** Welch–Satterthwaite degrees of freedom, unrounded. */
  df: number;
  /** Two-sided p-value. */
  p: number;
  /** mean(head) − mean(base). */
  difference: number;
  /** Standard error of the difference. */
  se: number;
  /** Confidence interval for the difference of means at the requested level. */
  lower: number;
  upper: number;
}
