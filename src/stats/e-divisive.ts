import { eDivisiveStatistic } from './e-divisive-statistic.js';
import { studentTTwoSample } from './student-t-two-sample.js';

/**
 * Change points of a series (oldest value first) by E-Divisive means with Hunter's deterministic
 * significance test, as Apache Otava (formerly datastax-labs/hunter) does it:
 *
 * 1. **Split.** Windows of `windowLength` points, each starting half a window after the previous one (or at
 *    the last change point found, if later). In each window E-Divisive splits recursively: the candidate of
 *    each segment is the split with the largest divergence T(τ) (eDivisiveStatistic), the best candidate
 *    over all segments is tested with Student's t-test between its two adjacent segments, and splitting
 *    stops at the first candidate that is not significant at the relaxed first-pass level (10·maxP).
 *    The union over all windows is the set of *weak* change points.
 * 2. **Merge.** Each weak change point is re-tested against its neighbours over the whole series; the one
 *    with the largest p is dropped while p ≥ maxP, then the one with the smallest magnitude while its
 *    magnitude ≤ minMagnitude; the two neighbours of a dropped point are re-tested each time.
 *
 * No permutations, no random numbers: the same series always gives the same change points, and a point
 * appended at the end only affects windows that reach the end, so change points found long ago stay put
 * unless the new data really changes their neighbours' statistics.
 *
 * Differences from Otava, on purpose: (a) segments shorter than `minSegment` are never formed (Otava
 * accepts single points); (b) the t-test uses sample standard deviations (ddof = 1; Otava passes NumPy's
 * ddof-0 ones, see studentTTwoSample); (c) after dropping a point the merge re-tests the change points on
 * both sides of it (Otava re-tests the following two, leaving the preceding one with stale statistics).
 *
 * With `scale: 'log'` the values are natural logarithms (e.g. ln of median TPS): means are reported as
 * geometric means on the original scale, the relative change is e^Δ − 1 and comes with a confidence
 * interval from the t-test's interval for Δ.
 *
 * References: Matteson & James (2014), JASA 109:334-345 (E-Divisive); Fleming et al. (2023), "Hunter:
 * Using Change Point Detection to Hunt for Performance Regressions", ICPE '23, doi:10.1145/3578244.3583719;
 * Daly et al. (2020), "The Use of Change Point Detection to Identify Software Performance Regressions in a
 * Continuous Integration System", ICPE '20 (MongoDB).
 *
 * Complexity: O(L·W²) for L points and window W in the split (each window's recursive divisions reuse the
 * statistics of unchanged segments), O(k·L) for the merge of k weak change points. Throws: RangeError for
 * non-finite values or invalid options. Series shorter than 2·minSegment have no change points.
 *
 * @example detectChangePoints([10, 10.1, 9.9, 10, 10.1, 9.9, 12, 12.1, 11.9, 12, 12.1, 11.9])[0].index // 6
 */
export function detectChangePoints(
  values: readonly number[],
  options: ChangePointOptions = {},
): ChangePoint[] {
  const o = resolveOptions(options);
  values.forEach((v, i) => {
    if (!Number.isFinite(v))
      throw new RangeError(`value ${i} is ${v}; change-point detection needs finite numbers`);
  });
  if (values.length < minPointsForDetection(o.minSegment)) return [];
  const weak = splitStep(values, o);
  return mergeStep(values, weak, o);
}

/** The fewest points a series needs before any change point can be found: one minimum segment a side. */
export function minPointsForDetection(minSegment: number = DEFAULT_MIN_SEGMENT): number {
  return 2 * minSegment;
}

/** Otava's default significance level for the final change points. */
export const DEFAULT_MAX_P = 0.001;
/** Shortest segment on either side of a change point: three nightly runs confirm a step. */
export const DEFAULT_MIN_SEGMENT = 3;
/** Otava's default window (`window_len = 50`): the split step never looks at more points at once. */
export const DEFAULT_WINDOW_LENGTH = 50;

/**
 * The relaxed level of the split step (Otava: 10·maxP below 0.05, 2·maxP below 0.5): weak change points
 * that the merge step then confirms or drops at maxP.
 */
export function firstPassP(maxP: number): number {
  return maxP < 0.05 ? maxP * 10 : maxP < 0.5 ? maxP * 2 : maxP;
}

export interface ChangePointOptions {
  /** A change point is kept when the t-test between its adjacent segments gives p < maxP. */
  maxP?: number;
  /** Fewest points on either side of a change point (≥ 2). */
  minSegment?: number;
  /**
   * Change points whose magnitude (max(|after/before − 1|, |before/after − 1|), a fraction) is not above
   * this are dropped even when significant. 0 keeps every significant one.
   */
  minMagnitude?: number;
  /** Points per split window (≥ 2·minSegment). */
  windowLength?: number;
  /** 'log' when the values are natural logarithms of the quantity (see above). */
  scale?: 'linear' | 'log';
  /** Confidence level of the magnitude's interval (log scale). */
  level?: number;
}

export interface ChangePoint {
  /** Index of the first value of the new regime (0-based). */
  index: number;
  /** Points in the segments before and after (bounded by the neighbouring change points). */
  nBefore: number;
  nAfter: number;
  /** Segment means; geometric means on the original scale when scale is 'log'. */
  meanBefore: number;
  meanAfter: number;
  /** after/before − 1 (e^Δ − 1 on the log scale); negative when the series went down. */
  relativeChange: number;
  /** max(|after/before − 1|, |before/after − 1|), what minMagnitude filters on. */
  magnitude: number;
  /** Student's t-test between the two segments: two-sided p, t (after − before) and df. */
  p: number;
  t: number;
  df: number;
  /** Confidence interval of relativeChange at `level` (scale 'log' only; null on the linear scale). */
  ci: { level: number; lower: number; upper: number } | null;
}

interface ResolvedOptions {
  maxP: number;
  minSegment: number;
  minMagnitude: number;
  windowLength: number;
  scale: 'linear' | 'log';
  level: number;
}

function resolveOptions(options: ChangePointOptions): ResolvedOptions {
  const o: ResolvedOptions = {
    maxP: options.maxP ?? DEFAULT_MAX_P,
    minSegment: options.minSegment ?? DEFAULT_MIN_SEGMENT,
    minMagnitude: options.minMagnitude ?? 0,
    windowLength: options.windowLength ?? DEFAULT_WINDOW_LENGTH,
    scale: options.scale ?? 'linear',
    level: options.level ?? 0.95,
  };
  if (!(o.maxP > 0 && o.maxP < 1)) throw new RangeError(`maxP must be in (0, 1), got ${o.maxP}`);
  if (!(Number.isInteger(o.minSegment) && o.minSegment >= 2)) {
    throw new RangeError(`minSegment must be an integer >= 2, got ${o.minSegment}`);
  }
  if (!(o.minMagnitude >= 0)) throw new RangeError(`minMagnitude must be >= 0, got ${o.minMagnitude}`);
  if (!(Number.isInteger(o.windowLength) && o.windowLength >= 2 * o.minSegment)) {
    throw new RangeError(
      `windowLength must be an integer >= 2·minSegment (${2 * o.minSegment}), got ${o.windowLength}`,
    );
  }
  if (!(o.level > 0 && o.level < 1)) throw new RangeError(`level must be in (0, 1), got ${o.level}`);
  return o;
}

/** Split step: weak change point indices, sorted, from overlapping windows. */
function splitStep(values: readonly number[], o: ResolvedOptions): number[] {
  const level = firstPassP(o.maxP);
  const step = Math.floor(o.windowLength / 2);
  const weak = new Set<number>();
  let start = 0;
  while (start < values.length) {
    const end = Math.min(start + o.windowLength, values.length);
    const found = divideWindow(values, start, end, level, o);
    for (const index of found) weak.add(index);
    start = Math.max(found.length > 0 ? found[found.length - 1]! : 0, start + step);
  }
  return [...weak].sort((a, b) => a - b);
}

/**
 * E-Divisive inside values[start:end]: repeatedly split the segment holding the strongest candidate while
 * the t-test between that candidate's adjacent segments gives p < level. Returns sorted indices.
 */
function divideWindow(
  values: readonly number[],
  start: number,
  end: number,
  level: number,
  o: ResolvedOptions,
): number[] {
  const cuts: number[] = [];
  const candidates = new Map<string, Candidate | null>();
  for (;;) {
    const bounds = [start, ...cuts, end];
    let best: (Candidate & { from: number; to: number }) | null = null;
    for (let i = 0; i + 1 < bounds.length; i++) {
      const from = bounds[i]!;
      const to = bounds[i + 1]!;
      const key = `${from}:${to}`;
      if (!candidates.has(key)) candidates.set(key, bestSplit(values, from, to, o.minSegment));
      const c = candidates.get(key)!;
      if (c && (best === null || c.statistic > best.statistic)) best = { ...c, from, to };
    }
    if (best === null) return cuts;
    const test = testSplit(values, best.from, best.index, best.to, o);
    if (!(test.p < level)) return cuts;
    cuts.push(best.index);
    cuts.sort((a, b) => a - b);
  }
}

interface Candidate {
  index: number;
  statistic: number;
}

/** The split of values[from:to] with the largest T, leaving minSegment points on each side (first on ties). */
function bestSplit(
  values: readonly number[],
  from: number,
  to: number,
  minSegment: number,
): Candidate | null {
  if (to - from < 2 * minSegment) return null;
  const t = eDivisiveStatistic(values, from, to);
  let best = minSegment;
  for (let k = minSegment + 1; k <= to - from - minSegment; k++) if (t[k]! > t[best]!) best = k;
  return { index: from + best, statistic: t[best]! };
}

/** Merge step: confirm weak change points at maxP and minMagnitude, re-testing neighbours of dropped ones. */
function mergeStep(values: readonly number[], weak: readonly number[], o: ResolvedOptions): ChangePoint[] {
  const bound = (i: number, points: readonly ChangePoint[]) =>
    i < 0 ? 0 : i >= points.length ? values.length : points[i]!.index;
  const retest = (points: ChangePoint[], i: number) => {
    if (i < 0 || i >= points.length) return;
    points[i] = testSplit(values, bound(i - 1, points), points[i]!.index, bound(i + 1, points), o);
  };
  const points = weak.map((index, i) =>
    testSplit(
      values,
      i === 0 ? 0 : weak[i - 1]!,
      index,
      i + 1 < weak.length ? weak[i + 1]! : values.length,
      o,
    ),
  );
  while (points.length > 0) {
    let weakest = argBest(points, (a, b) => a.p > b.p);
    if (points[weakest]!.p < o.maxP) {
      weakest = argBest(points, (a, b) => a.magnitude < b.magnitude);
      if (points[weakest]!.magnitude > o.minMagnitude) break;
    }
    points.splice(weakest, 1);
    retest(points, weakest - 1);
    retest(points, weakest);
  }
  return points;
}

/** Index of the first element that no later element beats. */
function argBest<T>(items: readonly T[], beats: (a: T, b: T) => boolean): number {
  let best = 0;
  for (let i = 1; i < items.length; i++) if (beats(items[i]!, items[best]!)) best = i;
  return best;
}

/** Student's t-test of values[from:cut] against values[cut:to], as a change point at `cut`. */
function testSplit(
  values: readonly number[],
  from: number,
  cut: number,
  to: number,
  o: ResolvedOptions,
): ChangePoint {
  const before = summarize(values, from, cut);
  const after = summarize(values, cut, to);
  const test = studentTTwoSample(before, after, o.level);
  const common = { index: cut, nBefore: before.n, nAfter: after.n, p: test.p, t: test.t, df: test.df };
  if (o.scale === 'log') {
    const d = test.difference;
    return {
      ...common,
      meanBefore: Math.exp(before.mean),
      meanAfter: Math.exp(after.mean),
      relativeChange: Math.expm1(d),
      magnitude: Math.expm1(Math.abs(d)),
      ci: { level: o.level, lower: Math.expm1(test.lower), upper: Math.expm1(test.upper) },
    };
  }
  const forward = after.mean / before.mean - 1;
  const backward = before.mean / after.mean - 1;
  return {
    ...common,
    meanBefore: before.mean,
    meanAfter: after.mean,
    relativeChange: forward,
    magnitude: Math.max(Math.abs(forward), Math.abs(backward)),
    ci: null,
  };
}

/** n, mean and sample standard deviation of values[from:to] (two passes, for accuracy). */
function summarize(
  values: readonly number[],
  from: number,
  to: number,
): { n: number; mean: number; sd: number } {
  const n = to - from;
  let sum = 0;
  for (let i = from; i < to; i++) sum += values[i]!;
  const mean = sum / n;
  let squares = 0;
  for (let i = from; i < to; i++) squares += (values[i]! - mean) ** 2;
  return { n, mean, sd: n > 1 ? Math.sqrt(squares / (n - 1)) : 0 };
}
