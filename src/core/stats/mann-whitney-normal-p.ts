import { normalCdf } from './normal-cdf.js';

/**
 * Two-sided p-value of the Mann–Whitney U by the normal approximation with tie correction and continuity
 * correction: z = (max(U, mn − U) − mn/2 − ½)/σ with σ² = mn/12·((N+1) − Σ(t³ − t)/(N(N−1))), and
 * p = min(1, 2·(1 − Φ(z))). Identical to SciPy's `mannwhitneyu(method='asymptotic', use_continuity=True)`.
 * Used when the exact distributions are too expensive; all-equal data (σ = 0) give z = 0, p = 1.
 * `continuity = false` drops the ½ (SciPy's `use_continuity=False`), for comparison only.
 *
 * Reference: Hollander, Wolfe & Chicken, Nonparametric Statistical Methods, 3rd ed., §4.1 (large-sample
 * approximation, ties).
 *
 * Complexity: O(number of tie groups). Throws: never.
 *
 * @example mannWhitneyNormalP(25, 5, 5, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]).p // 0.01218578035
 */
export function mannWhitneyNormalP(
  uBase: number,
  m: number,
  n: number,
  tieSizes: readonly number[],
  continuity = true,
): { z: number; p: number; sigma: number } {
  const N = m + n;
  const tieTerm = tieSizes.reduce((sum, t) => sum + (t * t * t - t), 0);
  const sigma = Math.sqrt(((m * n) / 12) * (N + 1 - tieTerm / (N * (N - 1))));
  if (!(sigma > 0)) return { z: 0, p: 1, sigma: 0 };
  const z = (Math.max(uBase, m * n - uBase) - (m * n) / 2 - (continuity ? CONTINUITY_CORRECTION : 0)) / sigma;
  return { z, p: Math.min(1, 2 * normalCdf(-z)), sigma };
}

/** ½: U moves in steps of 1 (without ties), so the approximation is evaluated half a step inwards. */
const CONTINUITY_CORRECTION = 0.5;
