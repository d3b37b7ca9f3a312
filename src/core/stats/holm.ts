/**
 * Holm's step-down adjustment of p-values for multiple comparisons; rejecting where the adjusted p < α
 * controls the family-wise error rate (the chance of any false alarm) at α under any dependence between
 * the tests, which is what a gate across client counts needs.
 *
 * Sort ascending p₍₁₎ ≤ … ≤ p₍ₘ₎; adj₍ᵢ₎ = min(1, max_{j ≤ i} (m − j + 1)·p₍ⱼ₎); results are returned in the
 * input order. Matches statsmodels `multipletests(method='holm')`.
 *
 * Reference: S. Holm, "A simple sequentially rejective multiple test procedure", Scand. J. Statist. 6 (1979)
 * 65-70.
 *
 * Complexity: O(m log m). Throws: never.
 *
 * @example holmAdjust([0.01, 0.04, 0.03]) // [0.03, 0.06, 0.06]
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((_, i) => i).sort((a, b) => pValues[a]! - pValues[b]!);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach((index, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * pValues[index]!));
    adjusted[index] = running;
  });
  return adjusted;
}
