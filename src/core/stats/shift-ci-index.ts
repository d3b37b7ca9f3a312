import { binomialCoefficient } from './binomial-coefficient.js';
import { mannWhitneyNullCounts, MAX_EXACT_PRODUCT } from './mann-whitney-null-counts.js';
import { normalCdf } from './normal-cdf.js';
import { normalQuantile } from './normal-quantile.js';

/**
 * Which order statistics of the m·n sorted pairwise differences bound the distribution-free confidence
 * interval of a location shift, and the confidence that interval really has.
 *
 * q is the smallest u with P(U ≤ u) ≥ (1 − level)/2 under the no-ties null distribution of U (set to 1 if
 * 0); the interval is [D₍q₎, D₍mn−q+1₎] and its achieved confidence is 1 − 2·P(U ≤ q − 1). Because U is
 * discrete the achieved level differs from the requested one, and small samples cannot reach it at all
 * (3 + 3 runs: at most 90%), so callers must report it. Without ties this interval is the exact dual of the
 * exact two-sided Mann–Whitney test: it excludes 0 iff p < 1 − level.
 *
 * Reference: Moses (1965) and Bauer (1972), JASA 67:687-690; R's `wilcox.test(conf.int = TRUE)`
 * (qu <- qwilcox(alpha/2, m, n); if (qu == 0) qu <- 1; achieved = 1 − 2·pwilcox(qu − 1, m, n)). Beyond
 * m·n = 10⁴ the exact distribution is replaced by its continuity-corrected normal approximation.
 *
 * Complexity: O(m·n) after the memoised null distribution. Throws: RangeError unless m, n ≥ 1 and
 * 0 < level < 1.
 *
 * @example shiftCiIndex(5, 5, 0.95) // { index: 3, achievedLevel: 0.9682539682539683 }
 */
export function shiftCiIndex(m: number, n: number, level: number): ShiftCiIndex {
  if (!(m >= 1 && n >= 1 && level > 0 && level < 1)) {
    throw new RangeError(`shift CI needs m, n ≥ 1 and 0 < level < 1, got m=${m}, n=${n}, level=${level}`);
  }
  const tail = (1 - level) / 2;
  if (m * n <= MAX_EXACT_PRODUCT) {
    const counts = mannWhitneyNullCounts(m, n);
    const total = binomialCoefficient(m + n, m);
    let below = 0; // P(U ≤ q − 1)·total
    let q = 0;
    while ((below + counts[q]!) / total < tail) below += counts[q++]!;
    if (q === 0) return { index: 1, achievedLevel: 1 - (2 * counts[0]!) / total };
    return { index: q, achievedLevel: 1 - (2 * below) / total };
  }
  // P(U ≤ u) ≈ Φ((u + ½ − mn/2)/σ): the smallest such u is ⌈mn/2 − ½ + σ·Φ⁻¹(tail)⌉.
  const mean = (m * n) / 2;
  const sigma = Math.sqrt((m * n * (m + n + 1)) / 12);
  const q = Math.max(1, Math.ceil(mean - 0.5 + sigma * normalQuantile(tail)));
  return { index: q, achievedLevel: 1 - 2 * normalCdf((q - 1 + 0.5 - mean) / sigma) };
}

export interface ShiftCiIndex {
  /** 1-based rank q of the lower bound among the sorted differences; the upper bound is rank m·n − q + 1. */
  index: number;
  /** The confidence the interval actually has (≥ the requested level unless the sample is too small). */
  achievedLevel: number;
}
