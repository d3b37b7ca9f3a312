import { MAD_TO_SD } from '../stats/robust-standardise.js';
import { detectChangePoints } from '../stats/e-divisive.js';

/**
 * Where a series became noisier: a change of its spread, not of its level (a runner that took on a noisy
 * neighbour). Its level tells nothing of PostgreSQL, so it is reported as "noisier", never as a regression.
 *
 * The spread is read off the differences of neighbouring points, d_i = y_{i+1} − y_i: a level step or a
 * drift moves one of them or all by a little, the noise moves all of them. E-Divisive (with its calibrated
 * test) runs on ln of the mean d² of blocks of BLOCK neighbouring differences, where a change of spread is a
 * change of level (ln of a scale), with segments of at least NOISE_MIN_SEGMENT differences; the place is
 * then refined on the differences themselves (refine). A change is kept when the robust spread (1.4826·MAD
 * of d) after is at least NOISIER_RATIO times the spread before. A spread that fell is not reported: quieter
 * nights need nobody's attention.
 *
 * Complexity: that of detectChangePoints on (n − 1)/BLOCK points. Throws: never for finite values.
 *
 * @example noiseChanges(calmThenNoisy, 0.001)[0] // { index: 60, ratio: 3.1 }
 */
export function noiseChanges(values: readonly number[], maxP: number, minSegment: number): NoiseChange[] {
  const segment = Math.max(minSegment, NOISE_MIN_SEGMENT);
  const blockSegment = Math.max(minSegment, Math.ceil(segment / BLOCK));
  const d = values.slice(1).map((v, i) => v - values[i]!);
  const blocks = Math.floor(d.length / BLOCK);
  if (blocks < 2 * blockSegment) return [];
  const typical = median(d.map((x) => x * x));
  if (!(typical > 0)) return [];
  // A floor well below the typical d² keeps ln finite for a block of equal neighbours without moving the rest.
  const floor = typical * LOG_FLOOR_SHARE;
  const logs = Array.from({ length: blocks }, (_, b) => {
    let sum = 0;
    for (let i = b * BLOCK; i < (b + 1) * BLOCK; i++) sum += d[i]! * d[i]!;
    return Math.log(sum / BLOCK + floor);
  });
  const found = detectChangePoints(logs, { maxP, minSegment: blockSegment }).map((c) => ({
    index: c.index * BLOCK,
    p: c.p,
  }));
  const bounds = [0, ...found.map((c) => c.index), d.length];
  return found.flatMap((c, k): NoiseChange[] => {
    const at = refine(d, bounds[k]!, c.index, bounds[k + 2]!, segment);
    const before = spread(d.slice(bounds[k]!, at));
    const after = spread(d.slice(at, bounds[k + 2]!));
    const ratio = after / before;
    // d_j spans points j and j + 1: the first difference of the noisier regime ends at its first point.
    return ratio >= NOISIER_RATIO
      ? [{ index: at + 1, ratio, spreadBefore: before, spreadAfter: after, p: c.p }]
      : [];
  });
}

/** A change of spread: the first point of the noisier regime, and how much noisier it is. */
export interface NoiseChange {
  index: number;
  /** Spread after / spread before (≥ NOISIER_RATIO). */
  ratio: number;
  /** Robust spread of one point's noise before and after, in the series' units (MAD of d / √2). */
  spreadBefore: number;
  spreadAfter: number;
  /** Student's p of the change of ln|d| (E-Divisive's test). */
  p: number;
}

/** Spread ratio from which a change of spread is worth saying: half as noisy again. */
export const NOISIER_RATIO = 1.5;
/** Fewest differences on either side of a change of spread. */
export const NOISE_MIN_SEGMENT = 8;
/** The floor added to a block's mean d² before the logarithm, as a share of the typical d². */
const LOG_FLOOR_SHARE = 1e-4;
/**
 * Differences per block: E-Divisive runs on ln of each block's mean d², not on ln|d| of every one. ln|d| is
 * a poor measure of scale (sd 1.11 for normal noise, a long tail towards 0); the mean of two squares is
 * half as informative again per difference (ln of χ²₂/2: sd 1.28 for a change of 2 ln ratio, against 1.11
 * for ln ratio), and half as many points cost E-Divisive less. Blocks of four were cheaper still but saw a
 * spread change in a monthly cycle taken out (bench/changepoint-patterns.ts). The place is refined on the
 * differences themselves.
 */
const BLOCK = 2;

/**
 * Where the spread changes between neighbours lo and hi, near E-Divisive's `at` (which a change of spread
 * moves by several points, ln|d| being so noisy): the split within REFINE_POINTS of it with the largest
 * Gaussian likelihood ratio of two variances, −k·ln(mean d² before) − (N − k)·ln(mean d² after).
 */
function refine(d: readonly number[], lo: number, at: number, hi: number, minSegment: number): number {
  let best = at;
  let bestScore = Number.NEGATIVE_INFINITY;
  const squares = (from: number, to: number) => {
    let sum = 0;
    for (let i = from; i < to; i++) sum += d[i]! * d[i]!;
    return Math.max(sum / (to - from), Number.MIN_VALUE);
  };
  for (
    let k = Math.max(lo + minSegment, at - REFINE_POINTS);
    k <= Math.min(hi - minSegment, at + REFINE_POINTS);
    k++
  ) {
    const score = -(k - lo) * Math.log(squares(lo, k)) - (hi - k) * Math.log(squares(k, hi));
    if (score > bestScore) [best, bestScore] = [k, score];
  }
  return best;
}

/** How far the place of a change of spread is looked for around E-Divisive's. */
const REFINE_POINTS = 12;

/** One point's noise from the spread of differences (a difference has √2 times its sd). */
function spread(d: readonly number[]): number {
  return (MAD_TO_SD * median(d.map((x) => Math.abs(x - median(d))))) / Math.SQRT2;
}

function median(values: readonly number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const m = v.length >> 1;
  return v.length === 0 ? Number.NaN : v.length % 2 === 1 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
}
