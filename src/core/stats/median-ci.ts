import { binomialCoefficient } from './binomial-coefficient.js';

/**
 * A distribution-free confidence interval for the median from order statistics: [x₍ₖ₎, x₍ₙ₋ₖ₊₁₎] with the
 * largest k such that 1 − 2·P(B ≤ k − 1) ≥ level for B ~ Binomial(n, ½), and the level it achieves. Below
 * n = 6 the 95% level cannot be reached; the widest interval [min, max] is returned with its achieved level
 * (93.75% at n = 5, 0 for one value), never a narrower one that pretends.
 *
 * Reference: Conover (1999), Practical Nonparametric Statistics, 3rd ed., §3.2 (confidence interval for a
 * quantile). Complexity: O(n log n) for the sort. Throws: RangeError on an empty sample or a bad level.
 *
 * @example medianCi([5, 1, 4, 2, 3]) // { median: 3, lower: 1, upper: 5, achievedLevel: 0.9375 }
 */
export function medianCi(values: readonly number[], level = 0.95): MedianCi {
  const n = values.length;
  if (n === 0) throw new RangeError('a median needs at least one value');
  if (!(level > 0 && level < 1)) throw new RangeError(`confidence level must be in (0, 1), got ${level}`);
  const sorted = [...values].sort((a, b) => a - b);
  const median = n % 2 === 1 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
  // tail(k) = P(B ≤ k − 1); the interval [x₍ₖ₎, x₍ₙ₋ₖ₊₁₎] covers with probability 1 − 2·tail(k).
  let k = 1;
  let tail = 0.5 ** n;
  while (2 * (k + 1) <= n + 1) {
    const nextTail = tail + binomialCoefficient(n, k) * 0.5 ** n;
    if (1 - 2 * nextTail < level) break;
    k++;
    tail = nextTail;
  }
  return { median, lower: sorted[k - 1]!, upper: sorted[n - k]!, achievedLevel: 1 - 2 * tail };
}

export interface MedianCi {
  median: number;
  lower: number;
  upper: number;
  /** The coverage the order statistics give (≥ level when reachable, otherwise the best possible). */
  achievedLevel: number;
}
