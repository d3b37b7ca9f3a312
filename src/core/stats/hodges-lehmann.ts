import { shiftCiIndex } from './shift-ci-index.js';

/**
 * Hodges–Lehmann estimate of the shift from `base` to `head`, the median of all m·n differences
 * head_j − base_i, with its distribution-free confidence intervals at the requested levels. Applied to
 * ln(TPS) the shift is a log-ratio; 100·(e^shift − 1) is the change in percent.
 *
 * The intervals are order statistics of the same differences (see shiftCiIndex), so with no ties the 95%
 * interval excludes 0 exactly when the exact two-sided Mann–Whitney p is below 0.05: estimate and test never
 * contradict each other. With ties the intervals are approximate (callers flag them).
 *
 * Reference: Hodges & Lehmann (1963), Ann. Math. Statist. 34:598-611; Bauer (1972), JASA 67:687-690;
 * Hollander, Wolfe & Chicken, Nonparametric Statistical Methods, 3rd ed., §4.2–4.3.
 *
 * Complexity: O(mn log mn) time, O(mn) memory. Throws: RangeError if an arm is empty or a level is
 * outside (0, 1).
 *
 * @example hodgesLehmann([1, 2, 3], [4, 5, 6], [0.9]).shift // 3
 */
export function hodgesLehmann(
  base: readonly number[],
  head: readonly number[],
  levels: readonly number[],
): HodgesLehmannResult {
  const m = base.length;
  const n = head.length;
  if (m === 0 || n === 0) throw new RangeError('Hodges-Lehmann needs at least one value in each arm');
  const diffs = new Float64Array(m * n);
  let k = 0;
  for (const h of head) for (const b of base) diffs[k++] = h - b;
  diffs.sort();
  const mid = diffs.length >> 1;
  const shift = diffs.length % 2 === 1 ? diffs[mid]! : (diffs[mid - 1]! + diffs[mid]!) / 2;
  const intervals = levels.map((level) => {
    const { index, achievedLevel } = shiftCiIndex(m, n, level);
    return { level, lower: diffs[index - 1]!, upper: diffs[m * n - index]!, index, achievedLevel };
  });
  return { shift, intervals };
}

export interface HodgesLehmannResult {
  /** Median of the pairwise differences head − base. */
  shift: number;
  /** One interval per requested level, in the order requested. */
  intervals: ShiftInterval[];
}

export interface ShiftInterval {
  /** Requested confidence level. */
  level: number;
  lower: number;
  upper: number;
  /** 1-based order statistic of the lower bound. */
  index: number;
  /** Confidence the interval actually has. */
  achievedLevel: number;
}
