import { medianAbsoluteDeviation } from 'simple-statistics';

/**
 * Robust standard deviation of ln(values): 1.4826·MAD(ln x). For run-to-run noise of a few percent this is
 * the coefficient of variation (as a fraction), estimated so that a single noisy-neighbour run does not
 * inflate it. Used to size experiments from measured noise.
 *
 * Reference: Rousseeuw & Croux, JASA 88 (1993) 1273-1283; 1.4826 = 1/Φ⁻¹(3/4) makes the MAD a consistent
 * estimator of σ for normal data (simple-statistics' MAD is unscaled).
 *
 * Complexity: O(n log n). Throws: never; fewer than 2 values give 0. Values must be positive.
 *
 * @example robustLogSpread([100, 101, 99, 100, 130]) // ≈ 0.0148: the 130 outlier barely moves it
 */
export function robustLogSpread(values: readonly number[]): number {
  if (values.length < 2) return 0;
  return MAD_TO_SD * medianAbsoluteDeviation(values.map(Math.log));
}

/** 1/Φ⁻¹(3/4): scales the median absolute deviation to a standard deviation under normality. */
export const MAD_TO_SD = 1.4826;
