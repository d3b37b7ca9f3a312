import { normalCdf } from './normal-cdf.js';
import { normalQuantile } from './normal-quantile.js';

/**
 * Lan–DeMets α-spending functions: the cumulative type I error α(t) a group-sequential design may have
 * spent by information fraction t ∈ [0, 1] (here: rounds so far / maximum rounds), with α(0) = 0 and
 * α(1) = α, so looks need not be equally spaced nor their number fixed in advance.
 *
 * - 'obrien-fleming': α(t) = 2 − 2Φ(z₁₋α/₂ / √t), spends almost nothing early and nearly α at the end
 *   (at α 0.05: 0.00001 at t 0.2, 0.0056 at 0.5, 0.05 at 1);
 * - 'pocock': α(t) = α·ln(1 + (e − 1)·t), spends evenly (0.0148 at t 0.2, 0.031 at 0.5).
 *
 * Reference: Lan & DeMets, "Discrete sequential boundaries for clinical trials", Biometrika 70 (1983)
 * 659-663; Jennison & Turnbull, Group Sequential Methods with Applications to Clinical Trials (2000), §7.2.
 *
 * Complexity: O(1). Throws: RangeError unless 0 < α < 1 and 0 ≤ t ≤ 1.
 *
 * @example alphaSpent('pocock', 0.05, 0.5) // 0.0310…
 */
export function alphaSpent(spending: SpendingFunction, alpha: number, t: number): number {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  if (!(t >= 0 && t <= 1)) throw new RangeError(`the information fraction must be in [0, 1], got ${t}`);
  if (t === 0) return 0;
  if (t === 1) return alpha;
  switch (spending) {
    case 'obrien-fleming':
      return 2 - 2 * normalCdf(normalQuantile(1 - alpha / 2) / Math.sqrt(t));
    case 'pocock':
      return alpha * Math.log(1 + (Math.E - 1) * t);
  }
}

export type SpendingFunction = 'obrien-fleming' | 'pocock';

export const SPENDING_FUNCTIONS: readonly SpendingFunction[] = ['obrien-fleming', 'pocock'];

/**
 * Nominal per-look levels for looks at the given information fractions: the α spent between consecutive
 * looks, α_k = α(t_k) − α(t_{k−1}). Testing look k at α_k keeps the overall type I error ≤ Σα_k = α by
 * Bonferroni over the looks, whatever the correlation between looks and whatever the test (exact rank
 * tests included): conservative against boundaries computed by recursive integration under a normal
 * model (those assume independent Gaussian increments, which discrete rank tests on a few rounds are not).
 *
 * Throws: RangeError unless the fractions increase strictly within (0, 1].
 *
 * @example perLookLevels('pocock', 0.05, [0.5, 1]) // [0.0310…, 0.0189…]
 */
export function perLookLevels(
  spending: SpendingFunction,
  alpha: number,
  fractions: readonly number[],
): number[] {
  let previous = 0;
  let spent = 0;
  return fractions.map((t) => {
    if (!(t > previous && t <= 1)) {
      throw new RangeError(
        `information fractions must increase within (0, 1], got [${fractions.join(', ')}]`,
      );
    }
    previous = t;
    const cumulative = alphaSpent(spending, alpha, t);
    const level = cumulative - spent;
    spent = cumulative;
    return level;
  });
}
