/**
 * A series rewritten as robust z-scores, so that statistics computed on it neither overflow nor underflow
 * whatever the magnitude of the data (1e200 or 1e-200 behave like 1):
 *
 *   u = v·2^(−exponent)        (exact: a power of two, chosen so that max |u| is in [1, 2))
 *   z = (u − location) / scale  location = median(u), scale = 1.4826·MAD(u)
 *
 * and back: v = 2^exponent·(location + scale·z); means and differences are best taken on u (exactly scaled
 * values) and carried back with unscale. The MAD is scaled to a standard deviation under normality
 * (1.4826 = 1/Φ⁻¹(3/4)). When more than half the values are equal the MAD is 0 and the scale falls back to
 * the mean absolute deviation from the median, scaled the same way (√(π/2)). The scale is never below 2⁻⁵⁰⁰
 * of the largest deviation from the median, so |z| ≤ 2⁵⁰⁰ and sums of squares of z-scores stay finite even
 * when one value is 10³⁰⁰ times the others' spread. A constant series has no scale: null.
 *
 * Every location-scale invariant statistic (Student's t, p, the position of the E-Divisive maximum) is the
 * same on z as on v.
 *
 * Reference: Rousseeuw & Croux (1993), "Alternatives to the Median Absolute Deviation", JASA 88:1273-1283
 * (MAD and its consistency constant); IEEE 754-2019 (a product with a power of two is exact unless it
 * overflows or is subnormal).
 *
 * Complexity: O(n log n) time (two sorts), O(n) memory. Throws: RangeError for a non-finite value.
 *
 * @example robustStandardise([1e200, 1e200, 2e200, 2e200])!.z // [-0.674…, -0.674…, 0.674…, 0.674…]
 */
export function robustStandardise(values: readonly number[]): RobustStandardised | null {
  let largest = 0;
  values.forEach((v, i) => {
    if (!Number.isFinite(v)) throw new RangeError(`value ${i} is ${v}; standardising needs finite numbers`);
    largest = Math.max(largest, Math.abs(v));
  });
  if (largest === 0) return null;
  const exponent = Math.floor(Math.log2(largest));
  const [down1, down2] = powerOfTwoFactors(-exponent);
  const u = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) u[i] = values[i]! * down1 * down2;
  const location = medianOf(Float64Array.from(u).sort());
  const deviations = Float64Array.from(u, (x) => Math.abs(x - location)).sort();
  let scale = MAD_TO_SD * medianOf(deviations);
  if (scale === 0) {
    let sum = 0;
    for (const d of deviations) sum += d;
    scale = MEAN_ABSOLUTE_DEVIATION_TO_SD * (sum / u.length);
  }
  if (scale === 0) return null;
  // The range is at most twice the largest deviation from the median.
  scale = Math.max(scale, deviations[deviations.length - 1]! * SMALLEST_SCALE_OF_RANGE);
  const z = new Float64Array(u.length);
  for (let i = 0; i < u.length; i++) z[i] = (u[i]! - location) / scale;
  return { z, scaled: u, location, scale, exponent };
}

/** A series as robust z-scores, with what it takes to go back to the data's units. */
export interface RobustStandardised {
  /** (v·2^(−exponent) − location)/scale for each value v. */
  z: Float64Array;
  /** v·2^(−exponent) for each value v (exact): means of these, times 2^exponent, are the data's means. */
  scaled: Float64Array;
  /** Median of the pre-scaled values. */
  location: number;
  /** Robust standard deviation of the pre-scaled values (> 0). */
  scale: number;
  /** Power of two the values were divided by. */
  exponent: number;
}

/** A quantity in the pre-scaled units (a mean of `scaled`, a difference) in the data's units, clamped. */
export function unscale(s: RobustStandardised, x: number): number {
  return clampFinite(timesPowerOfTwo(x, s.exponent));
}

/** x limited to ±Number.MAX_VALUE: outputs are finite even when a quantity exceeds the double range. */
export function clampFinite(x: number): number {
  return Math.min(Number.MAX_VALUE, Math.max(-Number.MAX_VALUE, x));
}

/** 1/Φ⁻¹(3/4): the MAD of normal data times this estimates σ (Rousseeuw & Croux 1993). */
export const MAD_TO_SD = 1.4826;
/** √(π/2): the mean absolute deviation of normal data times this estimates σ. */
export const MEAN_ABSOLUTE_DEVIATION_TO_SD = Math.sqrt(Math.PI / 2);
/** 2⁻⁵⁰⁰: the scale is never below this fraction of the largest |u − location|, so |z| ≤ 2⁵⁰⁰, z² ≤ 2¹⁰⁰⁰. */
export const SMALLEST_SCALE_OF_RANGE = 2 ** -500;

/** x·2^k, exact while the result is a normal number, for any k in [−2046, 2046]. */
function timesPowerOfTwo(x: number, k: number): number {
  const [f1, f2] = powerOfTwoFactors(k);
  return x * f1 * f2;
}

/** Two powers of two whose product is 2^k: one factor alone would overflow or underflow beyond ±1023. */
function powerOfTwoFactors(k: number): [number, number] {
  const half = Math.trunc(k / 2);
  return [2 ** half, 2 ** (k - half)];
}

function medianOf(sorted: Float64Array): number {
  const n = sorted.length;
  return n % 2 === 1 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
}
