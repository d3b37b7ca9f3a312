/**
 * Owen's T function T(h, a) = (1/2π)·∫₀ᵃ exp(−h²(1 + x²)/2)/(1 + x²) dx, for h ≥ 0 and 0 ≤ a ≤ 1.
 *
 * It gives bivariate normal probabilities with equal thresholds: for standard normals with correlation
 * ρ, P(Z₁ ≤ h < Z₂) = 2·T(h, √((1 − ρ)/(1 + ρ))), the chance that a sequence of correlated statistics
 * crosses h between two neighbours (see splitScanP).
 *
 * Computed as φ(h)/√(2π)·∫₀ˣ exp(−h²x²/2)/(1 + x²) dx with X = min(a, 9/h) (beyond it the integrand is
 * below e^−40.5 of its value at 0) by composite Gauss–Legendre quadrature, 4 panels of 8 nodes: the
 * integrand is smooth and at most half a Gaussian wide per panel, which gives about 12 significant digits.
 * T(0, a) = arctan(a)/(2π). For h beyond ~38 the result underflows to 0.
 *
 * Reference: Owen (1956), "Tables for computing bivariate normal probabilities", Ann. Math. Statist.
 * 27:1075-1090 (definition and the identity above); Abramowitz & Stegun (1964) 25.4.30 (Gauss–Legendre).
 *
 * Complexity: O(1) (32 exponentials). Throws: RangeError unless h ≥ 0 and 0 ≤ a ≤ 1.
 *
 * @example owensT(1, 0.5) // 0.0430646911207853 (Owen's table)
 */
export function owensT(h: number, a: number): number {
  if (!(h >= 0 && a >= 0 && a <= 1))
    throw new RangeError(`owensT needs h >= 0 and 0 <= a <= 1, got ${h}, ${a}`);
  if (a === 0) return 0;
  if (h === 0) return Math.atan(a) / (2 * Math.PI);
  const upper = Math.min(a, GAUSSIAN_REACH / h);
  const width = upper / PANELS;
  let integral = 0;
  for (let panel = 0; panel < PANELS; panel++) {
    const middle = (panel + 0.5) * width;
    for (let i = 0; i < NODES.length; i++) {
      const x = middle + (width / 2) * NODES[i]!;
      integral += (WEIGHTS[i]! * Math.exp((-h * h * x * x) / 2)) / (1 + x * x);
    }
  }
  integral *= width / 2;
  return (Math.exp((-h * h) / 2) / (2 * Math.PI)) * integral;
}

/** exp(−GAUSSIAN_REACH²/2) = e^−40.5: where the integrand no longer matters. */
const GAUSSIAN_REACH = 9;
const PANELS = 4;
/** Gauss–Legendre nodes and weights of order 8 on [−1, 1] (Abramowitz & Stegun, Table 25.4). */
const NODES = [
  -0.9602898564975363, -0.7966664774136267, -0.525532409916329, -0.1834346424956498, 0.1834346424956498,
  0.525532409916329, 0.7966664774136267, 0.9602898564975363,
];
const WEIGHTS = [
  0.1012285362903763, 0.2223810344533745, 0.3137066458778873, 0.362683783378362, 0.362683783378362,
  0.3137066458778873, 0.2223810344533745, 0.1012285362903763,
];
