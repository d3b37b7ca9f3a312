/**
 * Benjamini–Hochberg adjustment of p-values; rejecting where the adjusted p < α controls the false discovery
 * rate (the expected share of false alarms among the cells flagged) under independence or positive
 * dependence. Weaker than Holm's family-wise control, so it is for informational "likely changed" lists,
 * never for the gate.
 *
 * Sort ascending; adj₍ᵢ₎ = min(1, min_{j ≥ i} m·p₍ⱼ₎/j); results in input order. Matches statsmodels
 * `multipletests(method='fdr_bh')`.
 *
 * Reference: Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate", J. R. Statist. Soc. B 57
 * (1995) 289-300.
 *
 * Complexity: O(m log m). Throws: never.
 *
 * @example benjaminiHochbergAdjust([0.01, 0.04, 0.03]) // [0.03, 0.04, 0.04]
 */
export function benjaminiHochbergAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((_, i) => i).sort((a, b) => pValues[a]! - pValues[b]!);
  const adjusted = new Array<number>(m);
  let running = 1;
  for (let rank = m - 1; rank >= 0; rank--) {
    const index = order[rank]!;
    running = Math.min(running, (m * pValues[index]!) / (rank + 1));
    adjusted[index] = running;
  }
  return adjusted;
}
