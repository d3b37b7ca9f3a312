import { binomialCoefficient } from './binomial-coefficient.js';

/**
 * The smallest two-sided p-value the exact Mann–Whitney test can return with m and n runs per arm:
 * min(1, 2/C(m+n, m)), reached when the arms separate completely. If it is not below α/cells, Holm over
 * that many cells can never call anything significant, however large the effect: 5 + 5 runs give 0.0079,
 * more than 0.05/8 = 0.00625.
 *
 * Reference: follows from the exact null distribution (Mann & Whitney, 1947); tabulated in
 * docs/reference/statistics.md §2.5.
 *
 * Complexity: O(min(m, n)). Throws: never; an empty arm gives 1.
 *
 * @example minAchievableP(5, 5) // 0.007936507936507936
 */
export function minAchievableP(m: number, n: number): number {
  if (m < 1 || n < 1) return 1;
  return Math.min(1, 2 / binomialCoefficient(m + n, m));
}
