import { gammaln } from 'simple-statistics';
import { normalQuantile } from './normal-quantile.js';
import { studentTCdf } from './student-t-cdf.js';

/**
 * Quantile of Student's t with `df` (possibly fractional) degrees of freedom: the t with P(T ≤ t) = p.
 * Used for Welch confidence intervals, where df is the unrounded Welch–Satterthwaite value.
 *
 * Method: Newton's method on ln P(T ≤ −t) (well scaled in the far tail), started from the Cornish–Fisher
 * expansion around the normal quantile (Abramowitz & Stegun 26.7.5) and kept inside a bisection bracket, so
 * it always converges. Since the t tails are heavier than the normal, |Φ⁻¹(p)| is a lower bound of |t|.
 * Accuracy is that of studentTCdf (≈1e-15 relative; SciPy 1.17.1's t.ppf(0.975, 10) is 4e-11 off).
 *
 * Complexity: typically 3–6 evaluations of studentTCdf. Throws: never; p outside [0, 1], df ≤ 0 or NaN give
 * NaN; p = 0 or 1 gives ∓/±Infinity.
 *
 * @example studentTQuantile(0.975, 10) // 2.228138851986274
 */
export function studentTQuantile(p: number, df: number): number {
  if (!(p >= 0 && p <= 1) || !(df > 0)) return Number.NaN;
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  if (p === 0.5) return 0;
  const tail = Math.min(p, 1 - p);
  const z = -normalQuantile(tail);
  // Bracket [lo, hi] with P(T ≤ −lo) ≥ tail ≥ P(T ≤ −hi).
  let lo = z;
  let hi = Math.max(2 * z, 1);
  while (studentTCdf(-hi, df) > tail && hi < Number.MAX_VALUE / 2) {
    lo = hi;
    hi *= 2;
  }
  const z3 = z * z * z;
  let t = clamp(z + (z3 + z) / (4 * df) + (5 * z3 * z * z + 16 * z3 + 3 * z) / (96 * df * df), lo, hi);
  const logDensityConst = gammaln((df + 1) / 2) - gammaln(df / 2) - 0.5 * Math.log(df * Math.PI);
  for (let i = 0; i < MAX_ITERATIONS; i++) {
    const f = studentTCdf(-t, df);
    if (f > tail) lo = t;
    else hi = t;
    const density = Math.exp(logDensityConst - ((df + 1) / 2) * Math.log1p((t * t) / df));
    let next = t + ((Math.log(f) - Math.log(tail)) * f) / density;
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    const converged = Math.abs(next - t) <= TOLERANCE * t;
    t = next;
    if (converged || hi - lo <= TOLERANCE * t) break;
  }
  return p < 0.5 ? -t : t;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(Math.max(v, lo), hi);
}

const MAX_ITERATIONS = 200;
const TOLERANCE = 1e-15;
