import { regularizedIncompleteBeta } from './regularized-incomplete-beta.js';

/**
 * Distribution function of Student's t with `df` degrees of freedom, P(T ≤ t). `df` may be fractional
 * (Welch–Satterthwaite) and is never rounded: rounding df, as an old npm `ttest` did (AndreasMadsen/ttest#6),
 * shifts p-values visibly at small samples.
 *
 * Reference: P(T ≤ −|t|) = ½·I_{df/(df+t²)}(df/2, ½) (Abramowitz & Stegun 26.7.1 with 26.5.27). The lower
 * tail of the incomplete beta keeps relative accuracy for tiny p (≈1e-15). For df = ∞ use normalCdf.
 *
 * Complexity: that of regularizedIncompleteBeta. Throws: never; df ≤ 0 or NaN arguments give NaN,
 * t = ±Infinity gives 1 or 0.
 *
 * @example 2 * studentTCdf(-2, 10) // 0.0733880347707 (two-sided p at t = 2, df = 10)
 */
export function studentTCdf(t: number, df: number): number {
  if (Number.isNaN(t) || !(df > 0)) return Number.NaN;
  if (!Number.isFinite(t)) return t > 0 ? 1 : 0;
  const t2 = t * t;
  // x = df/(df+t²) and 1 − x = t²/(df+t²) are both formed directly, avoiding 1 − x cancellation.
  const lower = 0.5 * regularizedIncompleteBeta(df / (df + t2), df / 2, 0.5, t2 / (df + t2));
  return t > 0 ? 1 - lower : lower;
}
