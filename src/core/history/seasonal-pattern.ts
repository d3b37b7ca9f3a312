import { regularizedIncompleteBeta } from '../stats/regularized-incomplete-beta.js';

/**
 * A periodic pattern of a runner (a weekly load cycle: the weekend's nights faster than the week's; a
 * monthly batch job on the host), found
 * so that it can be taken out before change points are looked for: left in, every edge of the cycle is a
 * "change point".
 *
 * For each candidate period P (MIN_PERIOD … MAX_PERIOD points, at least MIN_CYCLES whole cycles in the
 * series), the level is followed by a running median over P points (a full cycle, so the pattern does not
 * move it, and edge-preserving, so a step does not leak into the residuals the way a running mean would),
 * and the residuals are grouped by phase (index mod P). Whether the phases differ is Friedman's test with
 * the whole cycles as blocks (ranks within each cycle: a pattern must show in every cycle, so one wild night,
 * a dip or a step inside one cycle makes none), its p multiplied by the number of periods tried
 * (Bonferroni). The period with the smallest corrected p
 * below `maxP` wins; its pattern is the median residual of each phase, centred on mean 0.
 *
 * `candidates` limits the periods tested (series-events.ts passes the spacings of the change points a
 * cycle would have made: a full cycle spans two of its edges); the Bonferroni factor stays the number of
 * all periods, so the test is no less strict for it.
 *
 * Periods are counted in points, not days: a series with missing nights shifts the phase (a date-based
 * phase would not; pgperf's nightly histories are one run a night).
 *
 * Reference: Friedman (1937), JASA 32:675-701; Iman & Davenport (1980), "Approximations of the
 * critical region of the Friedman statistic", Commun. Statist. A9:571-595; Cleveland et al. (1990), "STL: a seasonal-trend
 * decomposition procedure based on loess", J. Official Statist. 6:3-73 (the decomposition idea).
 *
 * Complexity: O(n·P) per period P tested. Throws: never.
 *
 * @example seasonalPattern(weekly)?.period // 7 for a series whose Saturdays and Sundays run 5% faster
 */
export function seasonalPattern(
  values: ArrayLike<number>,
  maxP: number,
  candidates?: readonly number[],
): SeasonalPattern | null {
  const n = values.length;
  const periods: number[] = [];
  for (let p = MIN_PERIOD; p <= MAX_PERIOD && p * MIN_CYCLES <= n; p++) periods.push(p);
  let best: SeasonalPattern | null = null;
  // Only the candidates are tested, but the correction is for every period that could have been.
  for (const period of candidates ? periods.filter((p) => candidates.includes(p)) : periods) {
    const level = runningMedian(values, period);
    const residuals = Array.from({ length: n }, (_, i) => values[i]! - level[i]!);
    const p = Math.min(1, friedmanP(residuals, period) * periods.length);
    if (p < maxP && (best === null || p < best.p)) {
      best = { period, p, pattern: phasePattern(residuals, period) };
    }
  }
  return best;
}

/** A periodic pattern: its period in points, corrected p, and the value of each phase (index mod period). */
export interface SeasonalPattern {
  period: number;
  p: number;
  /** Mean 0, in the series' units. */
  pattern: number[];
}

/** The series with the pattern taken out (values[i] − pattern[i mod period]). */
export function withoutPattern(values: readonly number[], s: SeasonalPattern): number[] {
  return values.map((v, i) => v - s.pattern[i % s.period]!);
}

/** Shortest period looked for: two nights (alternating). */
export const MIN_PERIOD = 2;
/** Longest: a month of nightly runs. */
export const MAX_PERIOD = 31;
/** Whole cycles a series needs before its period is looked for. */
export const MIN_CYCLES = 3;

/**
 * The median of a window of `width` points around each point (shifted inward at the ends): the windows
 * slide over a sorted copy, one removal and one insertion per step (O(n·width)).
 */
function runningMedian(values: ArrayLike<number>, width: number): number[] {
  const n = values.length;
  const sorted: number[] = [];
  for (let k = 0; k < width; k++) sorted.push(values[k]!);
  sorted.sort((a, b) => a - b);
  const medians: number[] = []; // by window start
  for (let start = 0; ; start++) {
    medians.push(
      width % 2 === 1 ? sorted[(width - 1) / 2]! : (sorted[width / 2 - 1]! + sorted[width / 2]!) / 2,
    );
    if (start + width >= n) break;
    sorted.splice(lowerBound(sorted, values[start]!), 1);
    const v = values[start + width]!;
    sorted.splice(lowerBound(sorted, v), 0, v);
  }
  return Array.from(
    { length: n },
    (_, i) => medians[Math.min(Math.max(0, i - Math.floor(width / 2)), n - width)]!,
  );
}

function lowerBound(sorted: readonly number[], v: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * p of Friedman's test that the phases differ, the cycles being the blocks (the ranks of the residuals
 * within each whole cycle): a pattern must show in every cycle, so a dip or a step inside one cycle is no
 * pattern. Iman & Davenport's F form of the statistic, with F's distribution.
 */
function friedmanP(residuals: readonly number[], period: number): number {
  const blocks = Math.floor(residuals.length / period);
  const rankSums = new Float64Array(period);
  for (let b = 0; b < blocks; b++) {
    const cycle = residuals.slice(b * period, (b + 1) * period);
    const order = cycle.map((v, j) => [v, j] as const).sort((x, y) => x[0] - y[0]);
    for (let k = 0; k < period;) {
      let j = k;
      while (j + 1 < period && order[j + 1]![0] === order[k]![0]) j++;
      for (let m = k; m <= j; m++) rankSums[order[m]![1]] = rankSums[order[m]![1]]! + (k + j) / 2 + 1;
      k = j + 1;
    }
  }
  let squares = 0;
  for (const r of rankSums) squares += r * r;
  const q = (12 / (blocks * period * (period + 1))) * squares - 3 * blocks * (period + 1);
  const d1 = period - 1;
  const d2 = (period - 1) * (blocks - 1);
  const room = blocks * (period - 1) - q;
  if (!(room > 0)) return 0; // every cycle ranks its phases alike
  const f = ((blocks - 1) * q) / room;
  if (!(f > 0)) return 1;
  // P(F > f) = I_{d2/(d2 + d1·f)}(d2/2, d1/2).
  return regularizedIncompleteBeta(d2 / (d2 + d1 * f), d2 / 2, d1 / 2, (d1 * f) / (d2 + d1 * f));
}

/** The median residual of each phase, centred on mean 0. */
function phasePattern(residuals: readonly number[], period: number): number[] {
  const pattern = Array.from({ length: period }, (_, phase) => {
    const v = residuals.filter((_, i) => i % period === phase).sort((a, b) => a - b);
    const m = v.length >> 1;
    return v.length % 2 === 1 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
  });
  const mean = pattern.reduce((a, b) => a + b, 0) / period;
  return pattern.map((x) => x - mean);
}
