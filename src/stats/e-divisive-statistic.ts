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
 * Complexity: O(L²) time, O(L) memory for L = end − start (each step moves one point from Y to X and
 * updates the three sums with its distances). Throws: RangeError for bounds outside the array.
 *
 * @example eDivisiveStatistic([1, 1, 5, 5]) // Float64Array [0, 1.333…, 8, 1.333…]: the split at τ = 2
 */
export function eDivisiveStatistic(values: readonly number[], start = 0, end = values.length): Float64Array {
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
  // Unordered pair sums: cross = Σ|x−y| (A), within X, within Y.
  let cross = 0;
  let withinX = 0;
  let withinY = 0;
  for (let i = start; i < end; i++) {
    const vi = values[i]!;
    for (let j = i + 1; j < end; j++) withinY += Math.abs(vi - values[j]!);
  }
  for (let tau = start; tau < end; tau++) {
    const n = tau - start;
    const m = end - tau;
    if (n > 0) {
      const e = (2 * cross) / (n * m) - (2 * withinX) / (n * n) - (2 * withinY) / (m * m);
      statistic[n] = ((n * m) / (n + m)) * e;
    }
    // Move values[tau] from Y to X.
    const v = values[tau]!;
    let toX = 0;
    for (let i = start; i < tau; i++) toX += Math.abs(values[i]! - v);
    let toY = 0;
    for (let j = tau + 1; j < end; j++) toY += Math.abs(v - values[j]!);
    cross += toY - toX;
    withinX += toX;
    withinY -= toY;
  }
  return statistic;
}
