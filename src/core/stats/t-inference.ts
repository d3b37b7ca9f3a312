import { studentTCdf } from './student-t-cdf.js';
import { studentTQuantile } from './student-t-quantile.js';

/**
 * The t statistic, two-sided p-value and confidence interval of an estimate with standard error `se` on
 * `df` degrees of freedom: the common last step of the one-sample, paired and Welch t-tests.
 *
 * A zero standard error never gives NaN: t = 0, p = 1 for a zero estimate, t = ±∞, p = 0 otherwise, with
 * a zero-width interval.
 *
 * Reference: Student (1908), Biometrika 6:1-25. Complexity: O(1) plus the t quantile's iterations.
 *
 * @example tInference(1, 0.5, 4, 0.95).p // 0.11611652351681553
 */
export function tInference(estimate: number, se: number, df: number, level: number): TInference {
  if (se === 0) {
    const t = estimate === 0 ? 0 : Math.sign(estimate) * Number.POSITIVE_INFINITY;
    return { t, p: estimate === 0 ? 1 : 0, lower: estimate, upper: estimate };
  }
  const t = estimate / se;
  const margin = studentTQuantile(1 - (1 - level) / 2, df) * se;
  return {
    t,
    p: Math.min(1, 2 * studentTCdf(-Math.abs(t), df)),
    lower: estimate - margin,
    upper: estimate + margin,
  };
}

export interface TInference {
  t: number;
  /** Two-sided p-value. */
  p: number;
  /** Confidence interval for the estimate at the requested level. */
  lower: number;
  upper: number;
}
