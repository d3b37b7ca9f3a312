/**
 * Least-squares fits of a series' level over a region, for telling a staircase of change points from a
 * drift (series-events.ts): piecewise constant between given breaks, and the best "ramp" (flat, then a
 * straight line, then flat again: a gradual change from one level to another). Both are compared by a
 * penalised criterion (bic), so a ramp wins only when its fit is better by more than its parameters cost.
 *
 * Points can be left out (a mask): a transient dip inside a region is not part of its level. Every fit is
 * O(1) from prefix sums; the best ramp is searched coarse to fine (bestRamp).
 *
 * Reference: Schwarz (1978), "Estimating the dimension of a model", Ann. Statist. 6:461-464 (BIC); the
 * ramp is the continuous broken-line model of Hinkley (1971), "Inference in two-phase regression", JASA
 * 66:736-743, with two joins.
 */

/** Prefix sums of the kept points of a series: count, Σy, Σy², Σi, Σi², Σi·y. */
export interface LevelSums {
  n: Float64Array;
  y: Float64Array;
  yy: Float64Array;
  i: Float64Array;
  ii: Float64Array;
  iy: Float64Array;
}

/** The prefix sums of `values`, leaving out the indices where `keep` is false. O(n). */
export function levelSums(values: ArrayLike<number>, keep?: (i: number) => boolean): LevelSums {
  const len = values.length + 1;
  const s: LevelSums = {
    n: new Float64Array(len),
    y: new Float64Array(len),
    yy: new Float64Array(len),
    i: new Float64Array(len),
    ii: new Float64Array(len),
    iy: new Float64Array(len),
  };
  for (let k = 0; k < values.length; k++) {
    const used = keep === undefined || keep(k) ? 1 : 0;
    const v = used ? values[k]! : 0;
    s.n[k + 1] = s.n[k]! + used;
    s.y[k + 1] = s.y[k]! + v;
    s.yy[k + 1] = s.yy[k]! + v * v;
    s.i[k + 1] = s.i[k]! + used * k;
    s.ii[k + 1] = s.ii[k]! + used * k * k;
    s.iy[k + 1] = s.iy[k]! + k * v;
  }
  return s;
}

/** Kept points, their sum and their mean in [from, to). */
export function rangeMean(s: LevelSums, from: number, to: number): { n: number; mean: number } {
  const n = s.n[to]! - s.n[from]!;
  return { n, mean: n > 0 ? (s.y[to]! - s.y[from]!) / n : Number.NaN };
}

/** Residual sum of squares of one constant over [from, to). */
function constantRss(s: LevelSums, from: number, to: number): number {
  const n = s.n[to]! - s.n[from]!;
  if (n === 0) return 0;
  const sy = s.y[to]! - s.y[from]!;
  return Math.max(0, s.yy[to]! - s.yy[from]! - (sy * sy) / n);
}

/** A fit of a region: its residual sum of squares and kept points. */
export interface RegionFit {
  rss: number;
  n: number;
}

/** One constant per piece of [from, to) cut at `breaks` (sorted, inside the region). */
export function staircaseFit(s: LevelSums, from: number, to: number, breaks: readonly number[]): RegionFit {
  const bounds = [from, ...breaks, to];
  let rss = 0;
  for (let k = 0; k + 1 < bounds.length; k++) rss += constantRss(s, bounds[k]!, bounds[k + 1]!);
  return { rss, n: s.n[to]! - s.n[from]! };
}

/**
 * A ramp over [from, to): level a up to index `start`, level a + delta from index `end` on, a straight
 * line between (start < end; start = end − 1 is a step). `delta` and its standard error come from the
 * regression on the ramp's shape g (0 before, 1 after).
 */
export interface RampFit extends RegionFit {
  start: number;
  end: number;
  a: number;
  delta: number;
  /** Standard error of delta (residual variance on n − 4 degrees of freedom: a, delta, start, end). */
  seDelta: number;
}

/** The ramp with given joins, fitted by least squares; null when the region's points cannot fit one. */
export function rampFit(s: LevelSums, from: number, to: number, start: number, end: number): RampFit | null {
  const n = s.n[to]! - s.n[from]!;
  const width = end - start;
  // The line's points (start, end): g = (i − start)/width.
  const cRamp = s.n[end]! - s.n[start + 1]!;
  const iRamp = s.i[end]! - s.i[start + 1]!;
  const iiRamp = s.ii[end]! - s.ii[start + 1]!;
  const yRamp = s.y[end]! - s.y[start + 1]!;
  const iyRamp = s.iy[end]! - s.iy[start + 1]!;
  const nAfter = s.n[to]! - s.n[end]!;
  const yAfter = s.y[to]! - s.y[end]!;
  const sg = nAfter + (iRamp - start * cRamp) / width;
  const sgg = nAfter + (iiRamp - 2 * start * iRamp + start * start * cRamp) / (width * width);
  const sgy = yAfter + (iyRamp - start * yRamp) / width;
  const sy = s.y[to]! - s.y[from]!;
  const syy = s.yy[to]! - s.yy[from]!;
  const gg = sgg - (sg * sg) / n;
  if (!(gg > 1e-12) || n < 3) return null;
  const gy = sgy - (sg * sy) / n;
  const delta = gy / gg;
  const rss = Math.max(0, syy - (sy * sy) / n - delta * gy);
  const a = (sy - delta * sg) / n;
  const df = Math.max(1, n - 4);
  return { rss, n, start, end, a, delta, seDelta: Math.sqrt(rss / df / gg) };
}

/**
 * The best ramp over [from, to) whose line spans at least `minWidth` steps (end − start ≥ minWidth) and
 * straddles the indices `within` (start < within.first, end ≥ within.last: the change points it stands
 * for), by residual sum of squares; null when there is none. Coarse to fine: joins on a grid of
 * ⌈L/RAMP_GRID⌉ points, then every pair within one grid step of the best (the residual sum is smooth in
 * the joins), so a region of L points costs O(RAMP_GRID² + L²/RAMP_GRID²) fits, not O(L²).
 */
export function bestRamp(
  s: LevelSums,
  from: number,
  to: number,
  minWidth: number,
  within: { first: number; last: number } = { first: to - 1, last: from + 1 },
): RampFit | null {
  const lastStart = Math.min(within.first - 1, to - 1 - minWidth);
  const firstEnd = Math.max(within.last, from + minWidth);
  const search = (starts: [number, number], ends: [number, number], stride: number, best: RampFit | null) => {
    for (let start = Math.max(from, starts[0]); start <= Math.min(lastStart, starts[1]); start += stride) {
      const e0 = Math.max(firstEnd, start + minWidth, ends[0]);
      for (let end = e0; end <= Math.min(to - 1, ends[1]); end += stride) {
        const fit = rampFit(s, from, to, start, end);
        if (fit && (best === null || fit.rss < best.rss)) best = fit;
      }
    }
    return best;
  };
  const stride = Math.max(1, Math.ceil((to - from) / RAMP_GRID));
  const coarse = search([from, lastStart], [firstEnd, to - 1], stride, null);
  if (coarse === null || stride === 1) return coarse;
  return search(
    [coarse.start - stride, coarse.start + stride],
    [coarse.end - stride, coarse.end + stride],
    1,
    coarse,
  );
}

/** Grid points per region in the coarse pass of bestRamp. */
const RAMP_GRID = 40;

/**
 * Schwarz's criterion of a Gaussian fit with `parameters` free parameters: n·ln(RSS/n) + k·ln n (smaller
 * is better). A residual sum of 0 (an exact fit of synthetic data) is floored so the log stays finite.
 */
export function bic(fit: RegionFit, parameters: number): number {
  const n = Math.max(fit.n, 1);
  return n * Math.log(Math.max(fit.rss, 1e-300) / n) + parameters * Math.log(n);
}
