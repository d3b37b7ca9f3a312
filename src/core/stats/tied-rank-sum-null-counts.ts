/**
 * Exact permutation distribution of the Mann–Whitney U of the first arm conditional on the observed tie
 * pattern: counts[2U] is the number of the C(N, m) splits of the N pooled (mid)ranks into an arm of m and an
 * arm of N − m that give that U (indexed by 2U because midranks make U a multiple of ½).
 *
 * This is exactly what enumerating every split would give, computed without enumeration: tie groups are
 * items of a knapsack, choosing c of a group's t equal values in C(t, c) ways adds c midranks to the rank
 * sum (Hollander, Wolfe & Chicken, Nonparametric Statistical Methods, 3rd ed., §4.1, comment 9; the
 * permutation principle of Pitman, 1937).
 *
 * Complexity: O(N·m·S) with S = m(2N − m + 1) the largest doubled rank sum; for the sizes this is used
 * for (C(N, m) ≤ 10⁶, e.g. 11 + 11) that is about 10⁵ operations. Throws: never.
 *
 * @example tiedRankSumNullCounts([4, 4], 4)[0] // 1: all of arm 1 in the lower tie group, U = 0
 */
export function tiedRankSumNullCounts(tieSizes: readonly number[], m: number): Float64Array {
  const total = tieSizes.reduce((a, b) => a + b, 0);
  const maxSum = m * (2 * total - m + 1); // doubled sum of the m largest ranks
  const width = maxSum + 1;
  // ways[j·width + s]: weighted number of ways to pick j values so far with doubled rank sum s.
  const ways = new Float64Array((m + 1) * width);
  ways[0] = 1;
  let before = 0;
  for (const t of tieSizes) {
    const doubledRank = 2 * before + t + 1; // twice the midrank (before+1 + before+t)/2
    const choose = binomialRow(t);
    for (let j = Math.min(m, before); j >= 0; j--) {
      const from = j * width;
      for (let s = 0; s <= maxSum; s++) {
        const w = ways[from + s]!;
        if (w === 0) continue;
        for (let c = 1; c <= t && j + c <= m; c++) {
          const to = (j + c) * width + s + c * doubledRank;
          ways[to] = ways[to]! + w * choose[c]!;
        }
      }
    }
    before += t;
  }
  // Doubled U = doubled rank sum − m(m + 1).
  const counts = new Float64Array(2 * m * (total - m) + 1);
  const offset = m * width + m * (m + 1);
  for (let u2 = 0; u2 < counts.length; u2++) counts[u2] = ways[offset + u2]!;
  return counts;
}

/** C(t, 0…t) by Pascal's rule. */
function binomialRow(t: number): number[] {
  const row = [1];
  for (let k = 1; k <= t; k++) row.push((row[k - 1]! * (t - k + 1)) / k);
  return row;
}
