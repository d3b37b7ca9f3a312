import { eDivisiveStatistic } from './e-divisive-statistic.js';
import { MAX_LOWER_TAIL_WORK, mannWhitneyLowerTail } from './mann-whitney-lower-tail.js';
import { mannWhitneyNormalP } from './mann-whitney-normal-p.js';
import { clampFinite, robustStandardise, unscale, type RobustStandardised } from './robust-standardise.js';
import { splitScanP } from './split-scan-p.js';
import { studentTTwoSample } from './student-t-two-sample.js';

/**
 * Change points of a series (oldest value first) by E-Divisive means with Hunter's deterministic
 * significance test, as Apache Otava (formerly datastax-labs/hunter) does it, made scale-free and with a
 * false-positive rate that is stated and held:
 *
 * 0. **Standardise.** The series becomes robust z-scores (robustStandardise: median and 1.4826·MAD after an
 *    exact power-of-two scaling), so values around 1e200 or 1e-200 are analysed exactly like values around
 *    1, and nothing overflows. Means, changes and intervals are reported back in the data's units; t, p
 *    and the E-Divisive maximum do not depend on location and scale, so they are those of the raw data.
 * 1. **Split.** Windows of `windowLength` points, each starting half a window after the previous one (or at
 *    the last change point found, if later). In each window E-Divisive splits recursively: the candidate of
 *    each segment is the split with the largest divergence T(τ) (eDivisiveStatistic), the best candidate
 *    over all segments is tested with Student's t-test between its two adjacent segments, and splitting
 *    stops at the first candidate that is not significant at the relaxed first-pass level (10·maxP).
 *    The union over all windows is the set of *weak* change points.
 * 2. **Merge.** Each weak change point is re-tested against its neighbours over the whole series. It is
 *    kept only if all of these hold:
 *    - `pAdjusted` < maxP: Student's p corrected for having picked the best of all the splits between the
 *      neighbours (splitScanP, the Hunter–Worsley bound; Bonferroni at most). This is what holds the
 *      false-positive rate: without it, the best of ~45 splits of every window is tested as if it were
 *      the only one, and 10⁵ points of pure noise gave 92 change points;
 *    - the ranks agree: the Mann–Whitney test of the same two segments, corrected the same way, gives
 *      `pRankAdjusted` < firstPassP(maxP) (10·maxP), or the two segments do not overlap at all. This holds
 *      the rate whatever the noise distribution: one huge outlier makes Student's t large for a short
 *      segment around it, but not its ranks;
 *    - the magnitude is above minMagnitude.
 *    The weakest point is dropped first (largest corrected p, then smallest magnitude); the two neighbours
 *    of a dropped point are re-tested and re-placed: each moves to E-Divisive's best split within half a
 *    window of it, between its new neighbours, when that split's p is smaller.
 *
 * False positives: at most 1 false change point per 10⁴ points at the default maxP = 0.001, the stated rate
 * (STATED_FALSE_CHANGE_POINTS_PER_POINT). bench/changepoints.ts measures 0.04 per 10⁴ on 5·10⁵ seeded points
 * of Gaussian and of Student-t₃ noise and 0 on Cauchy noise (the uncorrected test: 9 per 10⁴). Each kept
 * point's t-test has familywise level maxP over the splits between its neighbours under normal noise, and
 * its rank test about 10·maxP under any continuous noise; what remains are pairs of points around a short
 * run of high or low values, whose two ends are chosen together.
 *
 * No permutations, no random numbers: the same series always gives the same change points, and a point
 * appended at the end only affects windows that reach the end, so change points found long ago stay put
 * unless the new data really changes their neighbours' statistics.
 *
 * Differences from Otava, on purpose: (a) segments shorter than `minSegment` are never formed (Otava
 * accepts single points); (b) the t-test uses sample standard deviations (ddof = 1; Otava passes NumPy's
 * ddof-0 ones, see studentTTwoSample); (c) after dropping a point the merge re-tests (and re-places) the
 * change points on both sides of it (Otava re-tests the following two, leaving the preceding one with stale
 * statistics); (d) the merge's p is corrected for the choice of the split and backed by ranks (above).
 *
 * With `scale: 'log'` the values are natural logarithms (e.g. ln of median TPS): means are reported as
 * geometric means on the original scale, the relative change is e^Δ − 1 and comes with a confidence
 * interval from the t-test's interval for Δ.
 *
 * References: Matteson & James (2014), JASA 109:334-345 (E-Divisive); Fleming et al. (2023), "Hunter:
 * Using Change Point Detection to Hunt for Performance Regressions", ICPE '23, doi:10.1145/3578244.3583719;
 * Daly et al. (2020), "The Use of Change Point Detection to Identify Software Performance Regressions in a
 * Continuous Integration System", ICPE '20 (MongoDB); Worsley (1982), Biometrika 69:297-302 (the
 * correction); Mann & Whitney (1947), Ann. Math. Statist. 18:50-60.
 *
 * Complexity: O(L log L) to standardise, O(L·W²) for L points and window W in the split (each window's
 * recursive divisions reuse the statistics of unchanged segments), O(k·(L log L + W²)) at worst for the
 * merge of k weak change points (10⁵ points: 0.5-0.7 s on a loaded 2-vCPU machine). Throws: RangeError
 * for non-finite values or invalid options. Series shorter than 2·minSegment, and constant series, have no
 * change points.
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
  const standardised = robustStandardise(values);
  if (standardised === null) return []; // constant: nothing changes
  const series: Standardised = { z: standardised.z, s: standardised, o };
  const weak = splitStep(series);
  return mergeStep(series, weak).map((test) => toChangePoint(series, test));
}

/** The fewest points a series needs before any change point can be found: one minimum segment a side. */
export function minPointsForDetection(minSegment: number = DEFAULT_MIN_SEGMENT): number {
  return 2 * minSegment;
}

/**
 * The false-positive rate pgperf states at the default maxP: at most one false change point per 10⁴ points
 * of a series that never changes, whatever its noise (bench/changepoints.ts measures it on 5·10⁵ points of
 * Gaussian, Student-t₃ and Cauchy noise).
 */
export const STATED_FALSE_CHANGE_POINTS_PER_POINT = 1e-4;

/** Otava's default significance level, here the familywise level of a change point's split (pAdjusted). */
export const DEFAULT_MAX_P = 0.001;
/** Shortest segment on either side of a change point: three nightly runs confirm a step. */
export const DEFAULT_MIN_SEGMENT = 3;
/** Otava's default window (`window_len = 50`): the split step never looks at more points at once. */
export const DEFAULT_WINDOW_LENGTH = 50;

/**
 * The relaxed level of the split step (Otava: 10·maxP below 0.05, 2·maxP below 0.5): weak change points
 * that the merge step then confirms or drops. Also the familywise level of the merge's rank test.
 */
export function firstPassP(maxP: number): number {
  return maxP < 0.05 ? maxP * 10 : maxP < 0.5 ? maxP * 2 : maxP;
}

export interface ChangePointOptions {
  /** A change point is kept when its corrected p (pAdjusted) is below maxP. */
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

/** A change point. Every number is finite: a quantity beyond the double range is ±Number.MAX_VALUE. */
export interface ChangePoint {
  /** Index of the first value of the new regime (0-based). */
  index: number;
  /** Points in the segments before and after (bounded by the neighbouring change points). */
  nBefore: number;
  nAfter: number;
  /** Segment means, in the data's units; geometric means on the original scale when scale is 'log'. */
  meanBefore: number;
  meanAfter: number;
  /** meanAfter − meanBefore, in the same units. */
  difference: number;
  /**
   * (after − before)/|before| (after/before − 1 for positive data; e^Δ − 1 on the log scale); negative
   * when the series went down. ±Number.MAX_VALUE when the mean before is 0.
   */
  relativeChange: number;
  /** max(|after/before − 1|, |before/after − 1|) = |Δ|/min(|before|, |after|), what minMagnitude filters. */
  magnitude: number;
  /** Student's t-test between the two segments: two-sided p, t (after − before) and df. */
  p: number;
  t: number;
  df: number;
  /** Candidate splits between the neighbours: nBefore + nAfter − 2·minSegment + 1. */
  candidates: number;
  /** p corrected for the choice among the candidate splits (splitScanP); below maxP at every change point. */
  pAdjusted: number;
  /** Mann–Whitney p of the same segments, corrected the same way (the rank check, see above). */
  pRankAdjusted: number;
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

/** The series as robust z-scores, what it takes to report in the data's units, and the options. */
interface Standardised {
  z: Float64Array;
  s: RobustStandardised;
  o: ResolvedOptions;
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
function splitStep(series: Standardised): number[] {
  const { z, o } = series;
  const level = firstPassP(o.maxP);
  const step = Math.floor(o.windowLength / 2);
  const weak = new Set<number>();
  let start = 0;
  while (start < z.length) {
    const end = Math.min(start + o.windowLength, z.length);
    const found = divideWindow(series, start, end, level);
    for (const index of found) weak.add(index);
    start = Math.max(found.length > 0 ? found[found.length - 1]! : 0, start + step);
  }
  return [...weak].sort((a, b) => a - b);
}

/**
 * E-Divisive inside z[start:end]: repeatedly split the segment holding the strongest candidate while
 * the t-test between that candidate's adjacent segments gives p < level. Returns sorted indices.
 */
function divideWindow(series: Standardised, start: number, end: number, level: number): number[] {
  const { z, o } = series;
  const cuts: number[] = [];
  const candidates = new Map<string, Candidate | null>();
  for (;;) {
    const bounds = [start, ...cuts, end];
    let best: (Candidate & { from: number; to: number }) | null = null;
    for (let i = 0; i + 1 < bounds.length; i++) {
      const from = bounds[i]!;
      const to = bounds[i + 1]!;
      const key = `${from}:${to}`;
      if (!candidates.has(key)) candidates.set(key, bestSplit(z, from, to, o.minSegment));
      const c = candidates.get(key)!;
      if (c && (best === null || c.statistic > best.statistic)) best = { ...c, from, to };
    }
    if (best === null) return cuts;
    const test = studentT(summarize(z, best.from, best.index), summarize(z, best.index, best.to), o.level);
    if (!(test.p < level)) return cuts;
    cuts.push(best.index);
    cuts.sort((a, b) => a - b);
  }
}

interface Candidate {
  index: number;
  statistic: number;
}

/** The split of z[from:to] with the largest T, leaving minSegment points on each side (first on ties). */
function bestSplit(z: Float64Array, from: number, to: number, minSegment: number): Candidate | null {
  if (to - from < 2 * minSegment) return null;
  const t = eDivisiveStatistic(z, from, to);
  let best = minSegment;
  for (let k = minSegment + 1; k <= to - from - minSegment; k++) if (t[k]! > t[best]!) best = k;
  return { index: from + best, statistic: t[best]! };
}

/** A change point at `index` between the segments z[from:index] and z[index:to], tested (z units). */
interface SplitTest {
  index: number;
  from: number;
  to: number;
  before: Summary;
  after: Summary;
  /** Segment means of the exactly scaled values (RobustStandardised.scaled). */
  meanBefore: number;
  meanAfter: number;
  student: StudentT;
  candidates: number;
  pAdjusted: number;
  /** null until the rank check ran (only once every t-test of the merge passes: sorting costs). */
  pRankAdjusted: number | null;
  magnitude: number;
  /** The merge drops the point with the largest weakness first while it is ≥ maxP. */
  weakness: number;
}

/**
 * Merge step: confirm weak change points (corrected p, ranks, magnitude), re-testing and re-placing the
 * neighbours of dropped ones.
 */
function mergeStep(series: Standardised, weak: readonly number[]): SplitTest[] {
  const { z, o } = series;
  const bound = (i: number, points: readonly SplitTest[]) =>
    i < 0 ? 0 : i >= points.length ? z.length : points[i]!.index;
  const retest = (points: SplitTest[], i: number) => {
    if (i < 0 || i >= points.length) return;
    const was = points[i]!.index;
    points[i] = replaced(series, bound(i - 1, points), was, bound(i + 1, points));
    if (points[i]!.index === was) return;
    // It moved: the segments of its neighbours end or start at it, so their statistics are stale.
    for (const j of [i - 1, i + 1]) {
      if (j >= 0 && j < points.length) {
        points[j] = testSplit(series, bound(j - 1, points), points[j]!.index, bound(j + 1, points));
      }
    }
  };
  const points = weak.map((index, i) =>
    testSplit(series, i === 0 ? 0 : weak[i - 1]!, index, i + 1 < weak.length ? weak[i + 1]! : z.length),
  );
  while (points.length > 0) {
    let weakest = argBest(points, (a, b) => a.weakness > b.weakness);
    if (points[weakest]!.weakness < o.maxP) {
      // Every t-test passes: now (and only now, sorting is the costly part) check the ranks of the points
      // whose segments changed since their last check; a point the ranks contradict is dropped first.
      let contradicted = false;
      for (const point of points)
        if (point.pRankAdjusted === null && !checkRanks(series, point)) contradicted = true;
      if (contradicted) continue;
      weakest = argBest(points, (a, b) => a.magnitude < b.magnitude);
      if (points[weakest]!.magnitude > o.minMagnitude) break;
    }
    points.splice(weakest, 1);
    retest(points, weakest - 1);
    retest(points, weakest);
  }
  return points;
}

/**
 * The change point near `index` between neighbours `from` and `to`: the one at `index`, or E-Divisive's best
 * split within half a window of it if that one's p is smaller (a neighbour was dropped, so the segments
 * grew and the best place for the step may have moved by a point or two).
 */
function replaced(series: Standardised, from: number, index: number, to: number): SplitTest {
  const { z, o } = series;
  const here = testSplit(series, from, index, to);
  const start = Math.max(from, index - Math.floor(o.windowLength / 2));
  const candidate = bestSplit(z, start, Math.min(to, start + o.windowLength), o.minSegment);
  if (candidate === null || candidate.index === index) return here;
  const there = testSplit(series, from, candidate.index, to);
  return there.student.p < here.student.p ? there : here;
}

/** Index of the first element that no later element beats. */
function argBest<T>(items: readonly T[], beats: (a: T, b: T) => boolean): number {
  let best = 0;
  for (let i = 1; i < items.length; i++) if (beats(items[i]!, items[best]!)) best = i;
  return best;
}

/** The merge's tests of a change point at `cut` between z[from:cut] and z[cut:to]. */
function testSplit(series: Standardised, from: number, cut: number, to: number): SplitTest {
  const { z, o } = series;
  const before = summarize(z, from, cut);
  const after = summarize(z, cut, to);
  const student = studentT(before, after, o.level);
  const meanBefore = meanOf(series.s.scaled, from, cut);
  const meanAfter = meanOf(series.s.scaled, cut, to);
  const pAdjusted = splitScanP(student.p, to - from, o.minSegment);
  return {
    index: cut,
    from,
    to,
    before,
    after,
    meanBefore,
    meanAfter,
    student,
    candidates: to - from - 2 * o.minSegment + 1,
    pAdjusted,
    pRankAdjusted: null,
    magnitude: magnitude(series.s, meanBefore, meanAfter, o.scale),
    weakness: pAdjusted,
  };
}

/**
 * The rank check of a tested split (see detectChangePoints): true when the ranks agree. Otherwise the point's
 * weakness becomes its corrected rank p (≥ 10·maxP), so the merge drops it.
 */
function checkRanks(series: Standardised, test: SplitTest): boolean {
  const { z, o } = series;
  const ranks = rankTest(z, test.from, test.index, test.to);
  test.pRankAdjusted = splitScanP(ranks.p, test.to - test.from, o.minSegment);
  const agree = ranks.separated || test.pRankAdjusted < firstPassP(o.maxP);
  if (!agree) test.weakness = Math.max(test.weakness, test.pRankAdjusted);
  return agree;
}

/** A tested split in the data's units, every number finite. */
function toChangePoint(series: Standardised, test: SplitTest): ChangePoint {
  const { s, o } = series;
  const { before, after, student } = test;
  const common = {
    index: test.index,
    nBefore: before.n,
    nAfter: after.n,
    relativeChange: relativeChange(s, test.meanBefore, test.meanAfter, o.scale),
    magnitude: test.magnitude,
    p: student.p,
    t: clampFinite(student.t),
    df: student.df,
    candidates: test.candidates,
    pAdjusted: test.pAdjusted,
    pRankAdjusted: test.pRankAdjusted ?? 1,
  };
  if (o.scale === 'log') {
    const meanBefore = clampFinite(Math.exp(unscale(s, test.meanBefore)));
    const meanAfter = clampFinite(Math.exp(unscale(s, test.meanAfter)));
    // The interval is on the z scale: times the robust scale it is in the pre-scaled units of ln(values).
    const bound = (dz: number) => clampFinite(Math.expm1(unscale(s, s.scale * dz)));
    return {
      ...common,
      meanBefore,
      meanAfter,
      difference: clampFinite(meanAfter - meanBefore),
      ci: { level: o.level, lower: bound(student.lower), upper: bound(student.upper) },
    };
  }
  return {
    ...common,
    meanBefore: unscale(s, test.meanBefore),
    meanAfter: unscale(s, test.meanAfter),
    difference: unscale(s, test.meanAfter - test.meanBefore),
    ci: null,
  };
}

/** (after − before)/|before| (e^Δ − 1 on the log scale), from means of the exactly scaled values. */
function relativeChange(s: RobustStandardised, before: number, after: number, scale: string): number {
  if (scale === 'log') return clampFinite(Math.expm1(unscale(s, after - before)));
  // A ratio needs no power of two: the scaled values are the data's times the same 2^−exponent.
  const difference = after - before;
  if (difference === 0) return 0;
  return clampFinite(difference / Math.abs(before));
}

/** max(|after/before − 1|, |before/after − 1|) (e^|Δ| − 1 on the log scale). */
function magnitude(s: RobustStandardised, before: number, after: number, scale: string): number {
  if (scale === 'log') return clampFinite(Math.expm1(Math.abs(unscale(s, after - before))));
  return Math.max(
    Math.abs(relativeChange(s, before, after, scale)),
    Math.abs(relativeChange(s, after, before, scale)),
  );
}

/** Mean of values[from:to]. */
function meanOf(values: Float64Array, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += values[i]!;
  return sum / (to - from);
}

interface StudentT {
  t: number;
  df: number;
  p: number;
  /** Confidence interval of the difference after − before, in z units. */
  lower: number;
  upper: number;
}

/**
 * Student's t-test of two segment summaries (studentTTwoSample). Both are first divided by the larger
 * standard deviation (t, p and df are unchanged), so that squaring it can neither overflow nor underflow.
 */
function studentT(before: Summary, after: Summary, level: number): StudentT {
  const unit = Math.max(before.sd, after.sd) || 1;
  const test = studentTTwoSample(
    { n: before.n, mean: 0, sd: before.sd / unit },
    { n: after.n, mean: (after.mean - before.mean) / unit, sd: after.sd / unit },
    level,
  );
  return { t: test.t, df: test.df, p: test.p, lower: test.lower * unit, upper: test.upper * unit };
}

interface Summary {
  n: number;
  mean: number;
  sd: number;
}

/** n, mean and sample standard deviation of z[from:to]: two passes, squared deviations scaled to ≤ 1. */
function summarize(z: Float64Array, from: number, to: number): Summary {
  const n = to - from;
  let sum = 0;
  for (let i = from; i < to; i++) sum += z[i]!;
  const mean = sum / n;
  let largest = 0;
  for (let i = from; i < to; i++) largest = Math.max(largest, Math.abs(z[i]! - mean));
  if (n < 2 || largest === 0) return { n, mean, sd: 0 };
  let squares = 0;
  for (let i = from; i < to; i++) squares += ((z[i]! - mean) / largest) ** 2;
  return { n, mean, sd: largest * Math.sqrt(squares / (n - 1)) };
}

/**
 * Two-sided Mann–Whitney p of z[from:cut] against z[cut:to]: exact (mannWhitneyLowerTail) without ties
 * when a segment has at most EXACT_RANKS_UP_TO points, where the normal approximation is far too
 * conservative (3 points above 97: exact 1.2e-5, normal 3.4e-3); otherwise the normal approximation with
 * tie correction. `separated`: no value of one segment reaches any of the other.
 */
function rankTest(z: Float64Array, from: number, cut: number, to: number): { p: number; separated: boolean } {
  const m = cut - from;
  const n = to - cut;
  const sorted = z.slice(from, to).sort();
  const tieSizes: number[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i + 1;
    while (j < sorted.length && sorted[j] === sorted[i]) j++;
    tieSizes.push(j - i);
    i = j;
  }
  const ties = tieSizes.length < sorted.length;
  let rankSum = 0;
  for (let i = from; i < cut; i++) {
    const below = countBelow(sorted, z[i]!, false);
    const notAbove = ties ? countBelow(sorted, z[i]!, true) : below + 1;
    rankSum += (below + 1 + notAbove) / 2; // midrank
  }
  const uBefore = rankSum - (m * (m + 1)) / 2;
  const u = Math.min(uBefore, m * n - uBefore);
  const separated = u === 0;
  const small = Math.min(m, n);
  if (!ties && small <= EXACT_RANKS_UP_TO && small * (u + 1) <= MAX_LOWER_TAIL_WORK) {
    return { p: Math.min(1, 2 * mannWhitneyLowerTail(u, m, n)), separated };
  }
  return { p: mannWhitneyNormalP(uBefore, m, n, tieSizes).p, separated };
}

/** Segments up to this many points get the exact rank test; beyond, the normal approximation is close. */
const EXACT_RANKS_UP_TO = 50;

/** Values of `sorted` below v (or ≤ v when `orEqual`), by binary search. */
function countBelow(sorted: Float64Array, v: number, orEqual: boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < v || (orEqual && sorted[mid] === v)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
