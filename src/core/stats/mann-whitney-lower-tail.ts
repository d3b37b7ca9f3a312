import { binomialCoefficient } from './binomial-coefficient.js';

/**
 * Exact P(U ≤ u) of the Mann–Whitney U of arms of m and n distinct values under H₀ (all C(m+n, m) splits
 * equally likely), for an arm as small as the last few points of a series against thousands before them,
 * where the normal approximation is far off (3 values above all 97 others: exact p = 1.2e-5, normal 3.4e-3).
 *
 * The number of splits with U = v is the coefficient of qᵛ in the Gaussian binomial
 * [m+n choose k]_q = Π_{i=1..k} (1 − q^{N−k+i})/(1 − q^i), k = min(m, n), N = m + n: each factor is a
 * prefix sum with stride i (division by 1 − qⁱ) and a difference with stride N − k + i, truncated at
 * degree u. Counts are exact integers below 2⁵³ and accurate to rounding beyond.
 *
 * Reference: Andrews (1976), The Theory of Partitions, Theorem 3.1 (generating function of partitions in
 * a k × (N − k) box, which is U's null distribution: Mann & Whitney 1947).
 *
 * Complexity: O(k·u) time, O(u) memory; callers keep k·u moderate (see MAX_LOWER_TAIL_WORK). Throws:
 * RangeError unless m, n ≥ 1 and u are integers (u < 0 gives 0).
 *
 * @example mannWhitneyLowerTail(0, 3, 97) // 6.18e-6 = 1/C(100, 3)
 */
export function mannWhitneyLowerTail(u: number, m: number, n: number): number {
  if (![u, m, n].every(Number.isInteger) || m < 1 || n < 1) {
    throw new RangeError(`mannWhitneyLowerTail needs integers u and m, n >= 1, got ${u}, ${m}, ${n}`);
  }
  if (u < 0) return 0;
  if (u >= m * n) return 1;
  const k = Math.min(m, n);
  const total = m + n;
  const counts = new Float64Array(u + 1);
  counts[0] = 1;
  for (let i = 1; i <= k; i++) {
    for (let v = i; v <= u; v++) counts[v]! += counts[v - i]!;
    const stride = total - k + i;
    for (let v = u; v >= stride; v--) counts[v]! -= counts[v - stride]!;
  }
  let below = 0;
  for (let v = 0; v <= u; v++) below += counts[v]!;
  return Math.min(1, below / binomialCoefficient(total, k));
}

/** Work (k·u) up to which callers use the exact tail: 10⁶ additions, about a millisecond. */
export const MAX_LOWER_TAIL_WORK = 1_000_000;
