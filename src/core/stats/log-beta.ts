import { gammaln } from 'simple-statistics';

/**
 * ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a+b), without the cancellation of that sum when a or b is large
 * (at a = 5·10⁴ the three terms are ~5·10⁵ each and the naive sum loses 6 digits, which is what limits a
 * Student t tail at large df).
 *
 * Reference: R's nmath `lbeta` (after Cody/SLATEC): for arguments ≥ 10 it writes ln Γ(x) as Stirling's
 * formula plus the correction ln Γ(x) − [(x−½)ln x − x + ln√(2π)] and combines the leading terms
 * analytically; smaller arguments use simple-statistics' `gammaln` (Lanczos, ~1e-15).
 *
 * Complexity: O(1). Throws: never; a or b ≤ 0 gives NaN.
 *
 * @example logBeta(0.5, 0.5) // 1.144729885849401 (ln π = 1.1447298858494002)
 */
export function logBeta(a: number, b: number): number {
  const p = Math.min(a, b);
  const q = Math.max(a, b);
  if (!(p > 0)) return Number.NaN;
  if (p >= STIRLING_MIN) {
    const corr = stirlingCorrection(p) + stirlingCorrection(q) - stirlingCorrection(p + q);
    return (
      -0.5 * Math.log(q) +
      LN_SQRT_2PI +
      corr +
      (p - 0.5) * Math.log(p / (p + q)) +
      q * Math.log1p(-p / (p + q))
    );
  }
  if (q >= STIRLING_MIN) {
    const corr = stirlingCorrection(q) - stirlingCorrection(p + q);
    return gammaln(p) + corr + p - p * Math.log(p + q) + (q - 0.5) * Math.log1p(-p / (p + q));
  }
  return gammaln(p) + gammaln(q) - gammaln(p + q);
}

/** ln Γ(x) − [(x−½)ln x − x + ln√(2π)] for x ≥ 10, by the Stirling series Σ B₂ₖ / (2k(2k−1)x^(2k−1)). */
function stirlingCorrection(x: number): number {
  const inv2 = 1 / (x * x);
  let sum = 0;
  for (let k = STIRLING_SERIES.length - 1; k >= 0; k--) sum = sum * inv2 + STIRLING_SERIES[k]!;
  return sum / x;
}

/** Below this the Stirling series (7 terms) is not accurate to double precision. */
const STIRLING_MIN = 10;
const LN_SQRT_2PI = 0.9189385332046728;
/** B₂ₖ / (2k(2k−1)) for k = 1…7 (Abramowitz & Stegun 6.1.40). */
const STIRLING_SERIES = [1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156];
