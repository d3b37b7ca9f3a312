/**
 * Exact null distribution of the Mann–Whitney U statistic without ties: counts[u] is the number of the
 * C(m+n, m) equally likely splits of m + n distinct values into arms of m and n whose U equals u
 * (u = 0 … m·n). The distribution is symmetric about m·n/2.
 *
 * Reference: Mann & Whitney (1947), Ann. Math. Statist. 18, recursion
 * f(u; m, n) = f(u − n; m − 1, n) + f(u; m, n − 1), the largest value being either in the first arm
 * (contributing n to U) or in the second. Additions only, so counts are exact integers below 2⁵³ (≈ 25 per
 * arm) and accurate to rounding beyond.
 *
 * Complexity: O(m²n²/4) time, O(m²n) memory, once per (m, n): results are memoised (callers must not
 * mutate the returned array). Throws: RangeError unless m, n are non-negative integers with
 * m·n ≤ MAX_EXACT_PRODUCT (above that the normal approximation is accurate and much cheaper).
 *
 * @example Array.from(mannWhitneyNullCounts(3, 4)) // [1, 1, 2, 3, 4, 4, 5, 4, 4, 3, 2, 1, 1]
 */
export function mannWhitneyNullCounts(m: number, n: number): Float64Array {
  if (!Number.isInteger(m) || !Number.isInteger(n) || m < 0 || n < 0 || m * n > MAX_EXACT_PRODUCT) {
    throw new RangeError(
      `exact Mann-Whitney distribution needs integer sizes with m·n ≤ ${MAX_EXACT_PRODUCT}, got ${m}, ${n}`,
    );
  }
  const [small, large] = m <= n ? [m, n] : [n, m]; // f(u; m, n) = f(u; n, m)
  const key = small * 100_003 + large;
  let counts = cache.get(key);
  if (!counts) {
    counts = compute(small, large);
    cache.set(key, counts);
  }
  return counts;
}

/** Largest m·n for which the exact distribution is tabulated (100 × 100 costs ~25M additions, once). */
export const MAX_EXACT_PRODUCT = 10_000;

const cache = new Map<number, Float64Array>();

function compute(m: number, n: number): Float64Array {
  // prev[i] holds f(·; i, k − 1) and next[i] holds f(·; i, k) while k (the second arm's size) grows to n.
  let prev: Float64Array[] = [];
  for (let i = 0; i <= m; i++) prev.push(Float64Array.of(1)); // f(0; i, 0) = 1
  for (let k = 1; k <= n; k++) {
    const next: Float64Array[] = [Float64Array.of(1)]; // f(0; 0, k) = 1
    for (let i = 1; i <= m; i++) {
      const f = new Float64Array(i * k + 1);
      f.set(prev[i]!); // largest value in the second arm: f(u; i, k − 1)
      const withLargestFirst = next[i - 1]!; // largest value in the first arm: f(u − k; i − 1, k)
      for (let u = 0; u < withLargestFirst.length; u++) f[u + k]! += withLargestFirst[u]!;
      next.push(f);
    }
    prev = next;
  }
  return prev[m]!;
}
