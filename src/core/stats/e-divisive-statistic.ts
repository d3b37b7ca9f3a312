/**
 * The E-Divisive divergence statistic T(τ) for every split τ of `values[start:end]` into X = values[start:τ]
 * and Y = values[τ:end] (n = τ − start, m = end − τ):
 *
 *   E(τ) = 2·A/(n·m) − Bx/n² − By/m²,   T(τ) = n·m/(n + m) · E(τ),
 *
 * where A sums |x − y| over the n·m cross pairs and Bx, By sum |·| over all ordered pairs within X and Y
 * (twice the unordered sums). This is the V-statistic form of MongoDB's signal-processing-algorithms (the
 * E-Divisive Hunter was built on, and the library behind the reference vector); Matteson & James use the
 * U-statistic form with binomial denominators, which moves the maximum by a point at most on short
 * segments. T(start) is 0 (an empty X). A large T means the two sides differ in distribution, mostly in
 * mean for one-dimensional series; the split with the largest T is E-Divisive's change-point candidate.
 *
 * Reference: Matteson & James (2014), "A Nonparametric Approach for Multiple Change Point Analysis of
 * Multivariate Data", JASA 109:334-345 (distance exponent α = 1); Szekely & Rizzo (2005) for E.
 *
 * Any magnitude: the values are first multiplied by a power of two that brings the largest |value| of the
 * interval into [1, 2), and T by its inverse at the end. Powers of two scale every difference and sum
 * exactly, so T is bit for bit the same as unscaled wherever that did not overflow (1e200 and 2e200 give
 * 1e200 times the T of 1 and 2, to rounding; sums of distances between values near 1e308 no longer become
 * Infinity).
 * T itself can only be infinite if it exceeds Number.MAX_VALUE (about L·range/2 > 1.8e308).
 *
 * Complexity: O(L²) time, O(L) memory for L = end − start (each step moves one point from Y to X and
 * updates the three sums with its distances). Throws: RangeError for bounds outside the array or a
 * non-finite value in the interval.
 *
 * @example eDivisiveStatistic([1, 1, 5, 5]) // Float64Array [0, 1.333…, 8, 1.333…]: the split at τ = 2
 */
export function eDivisiveStatistic(values: ArrayLike<number>, start = 0, end = values.length): Float64Array {
  if (!(
    Number.isInteger(start) &&
    Number.isInteger(end) &&
    start >= 0 &&
    start <= end &&
    end <= values.length
  )) {
    throw new RangeError(`bad interval [${start}, ${end}) of a series of ${values.length} values`);
  }
  const length = end - start;
  const statistic = new Float64Array(length);
  let largest = 0;
  for (let i = start; i < end; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v))
      throw new RangeError(`value ${i} is ${v}; the E-Divisive statistic needs finite numbers`);
    largest = Math.max(largest, Math.abs(v));
  }
  if (largest === 0) return statistic;
  // 2^−exponent brings the largest |value| into [1, 2), applied as two factors (2^±1074 is not a double).
  const exponent = Math.floor(Math.log2(largest));
  const half = Math.trunc(exponent / 2);
  const [down1, down2] = [2 ** -half, 2 ** (half - exponent)];
  const x = new Float64Array(length);
  for (let i = 0; i < length; i++) x[i] = values[start + i]! * down1 * down2;
  // Unordered pair sums of the scaled values: cross = Σ|x−y| (A), within X, within Y.
  let cross = 0;
  let withinX = 0;
  let withinY = 0;
  for (let i = 0; i < length; i++) {
    const xi = x[i]!;
    for (let j = i + 1; j < length; j++) withinY += Math.abs(xi - x[j]!);
  }
  for (let n = 0; n < length; n++) {
    const m = length - n;
    if (n > 0) {
      const e = (2 * cross) / (n * m) - (2 * withinX) / (n * n) - (2 * withinY) / (m * m);
      statistic[n] = ((n * m) / (n + m)) * e;
    }
    // Move x[n] from Y to X.
    const v = x[n]!;
    let toX = 0;
    for (let i = 0; i < n; i++) toX += Math.abs(x[i]! - v);
    let toY = 0;
    for (let j = n + 1; j < length; j++) toY += Math.abs(v - x[j]!);
    cross += toY - toX;
    withinX += toX;
    withinY -= toY;
  }
  // Back to the data's units: the inverse power of two.
  for (let n = 1; n < length; n++) statistic[n] = statistic[n]! / down1 / down2;
  return statistic;
}
