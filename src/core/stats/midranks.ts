/**
 * Ranks 1…N of `values` with tied values sharing the mean of their positions (midranks), plus the sizes of
 * the tie groups, which the Mann–Whitney tie correction and the conditional exact distribution need.
 * (simple-statistics' `wilcoxonRankSum` returns only one rank sum, so the tie structure is computed here.)
 *
 * Reference: Hollander, Wolfe & Chicken, Nonparametric Statistical Methods, 3rd ed., §4.1 (midranks).
 *
 * Complexity: O(N log N). Throws: never (NaN values would be ranked arbitrarily; callers filter them).
 *
 * @example midranks([10, 20, 20, 30]) // { ranks: [1, 2.5, 2.5, 4], tieSizes: [1, 2, 1] }
 */
export function midranks(values: readonly number[]): Midranks {
  const order = values.map((_, i) => i).sort((i, j) => values[i]! - values[j]!);
  const ranks = new Array<number>(values.length);
  const tieSizes: number[] = [];
  for (let start = 0; start < order.length;) {
    let end = start + 1;
    while (end < order.length && values[order[end]!] === values[order[start]!]) end++;
    const rank = (start + 1 + end) / 2; // mean of positions start+1 … end
    for (let k = start; k < end; k++) ranks[order[k]!] = rank;
    tieSizes.push(end - start);
    start = end;
  }
  return { ranks, tieSizes };
}

export interface Midranks {
  /** ranks[i] is the (mid)rank of values[i]. */
  ranks: number[];
  /** Sizes of the groups of equal values in ascending order of value; all 1 when there are no ties. */
  tieSizes: number[];
}
