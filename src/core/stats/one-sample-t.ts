import { mean, sampleStandardDeviation } from 'simple-statistics';
import { tInference } from './t-inference.js';

/**
 * One-sample t-test of H₀: E[x] = 0, used on paired per-round log-ratios ln(head/base), with a confidence
 * interval for the mean.
 *
 * simple-statistics' `tTest` divides by the population standard deviation (tTest([1..6], 3.385) = 0.1649,
 * against the textbook 0.1506) and returns no p-value, hence this function; it matches SciPy's
 * `ttest_1samp(x, 0)`. Zero variance never gives NaN: t = 0, p = 1 for an all-zero sample, t = ±∞, p = 0
 * otherwise.
 *
 * Reference: Student (1908), Biometrika 6:1-25.
 *
 * Complexity: O(n). Throws: RangeError if fewer than 2 values or the level is not in (0, 1).
 *
 * @example oneSampleT([1, 2, 3]).p // 0.0741799002274486
 */
export function oneSampleT(values: readonly number[], level = 0.95): OneSampleTResult {
  const n = values.length;
  if (n < 2) throw new RangeError('a one-sample t-test needs at least 2 values');
  if (!(level > 0 && level < 1)) throw new RangeError(`confidence level must be in (0, 1), got ${level}`);
  const estimate = mean(values);
  const se = sampleStandardDeviation(values) / Math.sqrt(n);
  const df = n - 1;
  return { ...tInference(estimate, se, df, level), df, estimate };
}

export interface OneSampleTResult {
  t: number;
  df: number;
  /** Two-sided p-value. */
  p: number;
  /** Sample mean. */
  estimate: number;
  /** Confidence interval for the mean at the requested level. */
  lower: number;
  upper: number;
}
