/**
 * Drift diagnostic (statistics.md §2.7): the per-round paired log-ratio ln(head/base). Interleaved rounds
 * make the unpaired test robust to a slow drift of the machine, but drift costs it power, while the paired
 * analysis cancels the drift. When the two disagree at α, the machine drifted (or an order effect exists):
 * prefer more rounds to a verdict. Never decides the verdict itself.
 */
import { oneSampleT } from '../stats/one-sample-t.js';
import type { DriftDiagnostic } from './types.js';

/**
 * @param base   base values by round
 * @param head   head values by round
 * @param unpairedP  the cell's unadjusted Mann–Whitney p
 * @param minAchievableP  the smallest p the unpaired test could give (a disagreement below it is the exact
 *   test's floor, not drift)
 * @returns null with fewer than 2 rounds where both arms have a usable value.
 */
export function pairedDrift(
  base: ReadonlyMap<number, number>,
  head: ReadonlyMap<number, number>,
  unpairedP: number,
  minAchievableP: number,
  alpha: number,
): DriftDiagnostic | null {
  const ratios: number[] = [];
  for (const [round, b] of base) {
    const h = head.get(round);
    if (h !== undefined && b > 0 && h > 0 && Number.isFinite(b) && Number.isFinite(h))
      ratios.push(Math.log(h / b));
  }
  if (ratios.length < 2) return null;
  const paired = oneSampleT(ratios);
  const disagree = paired.p < alpha !== unpairedP < alpha;
  return {
    pairs: ratios.length,
    pairedDeltaPct: 100 * Math.expm1(paired.estimate),
    pairedP: paired.p,
    drift: disagree && minAchievableP < alpha,
  };
}
