/**
 * The binomial coefficient C(n, k), the number of ways to split n runs into arms of k and n − k; exact
 * while the result is below 2⁵³, correctly rounded to about 1e-15 relative beyond.
 *
 * Reference: the multiplicative formula C(n, k) = Π_{i=1..k} (n − k + i)/i with k = min(k, n − k), each
 * partial product being itself a binomial coefficient (hence an integer).
 *
 * Complexity: O(min(k, n − k)). Throws: never; k < 0 or k > n gives 0; non-integers are not supported.
 *
 * @example binomialCoefficient(10, 5) // 252
 */
export function binomialCoefficient(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  const small = Math.min(k, n - k);
  let c = 1;
  for (let i = 1; i <= small; i++) c = (c * (n - small + i)) / i;
  // Intermediate products can exceed 2⁵³ before the division; rounding restores the exact integer.
  return c < Number.MAX_SAFE_INTEGER ? Math.round(c) : c;
}
