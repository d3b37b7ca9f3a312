/**
 * Exact null distribution of the Wilcoxon signed-rank statistic, conditional on the observed (mid)ranks of
 * |d|: counts[2T⁺] is the number of the 2ⁿ equally likely sign patterns whose positive-rank sum is T⁺
 * (indexed by 2T⁺ because midranks of tied |d| make T⁺ a multiple of ½).
 *
 * Under H₀ (the differences are symmetric about 0) every one of the 2ⁿ sign patterns is equally likely, so
 * the distribution is a subset-sum count over the ranks: each rank is either in T⁺ or not. Without ties the
 * ranks are 1…n and this is the classical table (Wilcoxon, 1945); with ties it is the permutation
 * distribution given the midranks, exact where the normal approximation with tie correction is not.
 *
 * Reference: Wilcoxon, "Individual comparisons by ranking methods", Biometrics Bulletin 1 (1945) 80-83;
 * Hollander, Wolfe & Chicken, Nonparametric Statistical Methods, 3rd ed., §3.1 (comment 11 on ties).
 *
 * Complexity: O(n·S) with S = n(n + 1) the largest doubled sum: 10⁴ operations at 100 pairs, so it is exact at
 * every size this project meets. The no-ties table is memoised per n (callers must not mutate it).
 * Throws: RangeError if a doubled rank is not a positive integer.
 *
 * @example Array.from(signedRankNullCounts([2, 4, 6])).filter((_, i) => i % 2 === 0) // [1, 1, 1, 2, 1, 1, 1]
 */
export function signedRankNullCounts(doubledRanks: readonly number[]): Float64Array {
  const noTies = doubledRanks.every((r, i) => r === 2 * (i + 1));
  const n = doubledRanks.length;
  if (noTies) {
    const cached = cache.get(n);
    if (cached) return cached;
  }
  let total = 0;
  for (const r of doubledRanks) {
    if (!Number.isInteger(r) || r < 1)
      throw new RangeError(`doubled ranks must be positive integers, got ${r}`);
    total += r;
  }
  const counts = new Float64Array(total + 1);
  counts[0] = 1;
  let reach = 0;
  for (const r of doubledRanks) {
    for (let s = reach; s >= 0; s--) if (counts[s]! !== 0) counts[s + r] = counts[s + r]! + counts[s]!;
    reach += r;
  }
  if (noTies) cache.set(n, counts);
  return counts;
}

const cache = new Map<number, Float64Array>();
