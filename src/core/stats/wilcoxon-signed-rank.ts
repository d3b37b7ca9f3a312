import { midranks } from './midranks.js';
import { signedRankNullCounts } from './signed-rank-null-counts.js';
import type { MannWhitneyMethod } from './mann-whitney.js';

/**
 * Two-sided Wilcoxon signed-rank test of H₀: the paired differences `d` (here ln(head/base) per round) are
 * symmetric about 0.
 *
 * Zero differences carry no sign and are dropped (Wilcoxon's convention, SciPy's `zero_method='wilcox'`).
 * The remaining |d| are ranked with midranks; T⁺ is the rank sum of the positive differences. The p-value is
 * always exact: p = P(|T⁺ − S/2| ≥ |T⁺_obs − S/2|) over the 2ⁿ sign patterns (S the total rank sum), from the
 * exact null distribution (no ties) or the exact distribution conditional on the tied midranks
 * (signedRankNullCounts), so there is no normal approximation to flip a decision.
 *
 * Reference: Wilcoxon (1945), Biometrics Bulletin 1:80-83; Hollander, Wolfe & Chicken, Nonparametric
 * Statistical Methods, 3rd ed., §3.1. Without ties and zeros it equals SciPy's
 * `wilcoxon(d, method='exact')` and R's `wilcox.test(d, exact = TRUE)`.
 *
 * Complexity: O(n log n + n·S), S = n(n + 1). Throws: never; all-zero (or empty) input gives p = 1.
 *
 * @example wilcoxonSignedRank([-0.1, -0.2, -0.3, -0.4, -0.5, -0.6]).p // 0.03125 = 2/2⁶, the floor at 6 pairs
 */
export function wilcoxonSignedRank(d: readonly number[]): SignedRankResult {
  const nonzero = d.filter((x) => x !== 0);
  const n = nonzero.length;
  const zeros = d.length - n;
  if (n === 0) return { tPlus: 0, n, zeros, ties: false, p: 1, method: 'exact' };
  const { ranks, tieSizes } = midranks(nonzero.map(Math.abs));
  const ties = tieSizes.some((t) => t > 1);
  let doubledPlus = 0;
  nonzero.forEach((x, i) => {
    if (x > 0) doubledPlus += 2 * ranks[i]!;
  });
  const doubledRanks = ties ? ranks.map((r) => 2 * r) : Array.from({ length: n }, (_, i) => 2 * (i + 1));
  const counts = signedRankNullCounts(doubledRanks);
  const totalDoubled = counts.length - 1;
  const observed = Math.abs(2 * doubledPlus - totalDoubled);
  let extreme = 0;
  for (let s = 0; s <= totalDoubled; s++)
    if (Math.abs(2 * s - totalDoubled) >= observed - 1e-9) extreme += counts[s]!;
  return {
    tPlus: doubledPlus / 2,
    n,
    zeros,
    ties,
    p: Math.min(1, extreme / 2 ** n),
    method: ties ? 'exact-conditional' : 'exact',
  };
}

export interface SignedRankResult {
  /** Sum of the ranks of |d| over the positive differences. */
  tPlus: number;
  /** Non-zero differences tested. */
  n: number;
  /** Zero differences dropped. */
  zeros: number;
  ties: boolean;
  /** Two-sided p-value in [0, 1]. */
  p: number;
  method: MannWhitneyMethod;
}

/**
 * The smallest two-sided p the exact signed-rank test can give with n pairs: 2/2ⁿ, reached when every
 * difference has the same sign (0.0625 at 5 pairs, 0.03125 at 6, 0.0039 at 9).
 *
 * @example signedRankMinP(9) // 0.00390625
 */
export function signedRankMinP(n: number): number {
  return n < 1 ? 1 : Math.min(1, 2 ** (1 - n));
}
