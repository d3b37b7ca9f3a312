/**
 * The events of a series: what changed, and how. E-Divisive (src/core/stats/e-divisive.ts) cuts a series
 * into segments of constant level, which is right for a level shift and wrong for everything else a nightly
 * history holds: a slow drift becomes a staircase of change points, a weekly load cycle a change point at
 * every edge, a dip that reverts two unrelated ones, and a runner that became noisier looks like nothing or
 * like a step. This stage runs around the segmentation and says what each change is:
 *
 * 1. **Segmentation** by detectChangePoints, as before: a level shift in noise is found at the same index.
 * 2. **Periodic pattern out** (seasonal-pattern.ts): when there are change points, a significant cycle of
 *    2-31 points is looked for at the spacings of the change points; if there is one, it is subtracted and the series segmented again, so the
 *    cycle's edges are not change points; a periodic series alone yields nothing. (A series without change
 *    points is not searched: the common case stays as cheap as it was.)
 * 3. **Noisier** (noise-changes.ts; not looked for once a periodic pattern was taken out, whose traces in the
 *    differences read as changes of spread): a change of spread is an event of its own; a change point of the
 *    level at the same place (within minSegment) that is no larger than the new noise is part of it, so a
 *    noisier runner is never called a regression.
 * 4. **Transient**: two neighbouring change points at most TRANSIENT_MAX_POINTS apart that go out and
 *    come back (the level after is within REVERT_SHARE of the excursion from the level before) are one
 *    event: a dip or spike that reverted.
 * 5. **Drift**: the remaining change points are taken in runs of the same direction. For each run, the
 *    region between its neighbouring change points is fitted twice (level-fits.ts): as the staircase the
 *    change points describe (one level per segment: 2m + 1 parameters for m change points) and as the best
 *    ramp (a level, a straight line of at least MIN_DRIFT_POINTS points, another level: 4 parameters). The
 *    ramp is a drift when its Schwarz criterion (BIC) is smaller. A run that is not one drift is tried
 *    change point by change point, each between its own neighbours (one drift that E-Divisive cut once).
 *    The transients' points are left out of these fits.
 * 6. What remains is a **step**, reported exactly as E-Divisive found it.
 *
 * An isolated outlier is no event: a segment has at least minSegment points and the segmentation's rank
 * check refuses a short segment made by one wild value.
 *
 * Every event is reported with the index before it started (`from`) and the first index after it ended
 * (`to`): for a step these are neighbours; for a drift the start and end of the ramp; for a transient the
 * last point before the excursion and the first back; for noisier the first point of the noisier regime is
 * `to`. Levels are in the data's units (geometric means when `scale` is 'log').
 *
 * Complexity: detectChangePoints twice (levels and spread; three times when a pattern is found), the
 * pattern's search when there are change points (O(n·P) per period P), and a coarse-to-fine ramp search
 * per run of change points (bench/changepoint-patterns.ts measures the time on 400 points). Throws: RangeError as detectChangePoints.
 *
 * @example seriesEvents(twoPercentOverSixtyNights, { scale: 'log' }).map((e) => e.kind) // ['drift']
 */
import {
  DEFAULT_MAX_P,
  DEFAULT_MIN_SEGMENT,
  detectChangePoints,
  minPointsForDetection,
  type ChangePoint,
  type ChangePointOptions,
} from '../stats/e-divisive.js';
import {
  clampFinite,
  robustStandardise,
  unscale,
  type RobustStandardised,
} from '../stats/robust-standardise.js';
import { studentTCdf } from '../stats/student-t-cdf.js';
import { studentTQuantile } from '../stats/student-t-quantile.js';
import {
  bestRamp,
  bic,
  levelSums,
  rangeMean,
  staircaseFit,
  type LevelSums,
  type RampFit,
} from './level-fits.js';
import { noiseChanges, type NoiseChange } from './noise-changes.js';
import { seasonalPattern, withoutPattern, type SeasonalPattern } from './seasonal-pattern.js';

export type SeriesEventKind = 'step' | 'drift' | 'transient' | 'noisier';

export interface SeriesEvent {
  kind: SeriesEventKind;
  /** The last index before the event started. */
  from: number;
  /** The first index after it ended (a step's first value of the new level; a transient's first back). */
  to: number;
  /**
   * Levels before and after (a transient: before and during it; noisier: the spread of one value's noise
   * before and after), in the data's units, geometric on the log scale.
   */
  before: number;
  after: number;
  /** after vs before: (after − before)/|before|, e^Δ − 1 on the log scale; noisier: spread ratio − 1. */
  relativeChange: number;
  /** The change's confidence interval (at the options' level; log scale only, as detectChangePoints). */
  ci: { level: number; lower: number; upper: number } | null;
  /** Two-sided p of the change (a step's and a transient's: Student's of its change point). */
  p: number;
  /** A drift: relative change per value (e^(Δ/(to − from)) − 1 on the log scale). */
  perPoint?: number;
  /** A transient: the level it came back to. */
  back?: number;
  /** The E-Divisive change points the event stands for (none for noisier), oldest first. */
  changePoints: ChangePoint[];
}

/** What the stage found besides the events: the periodic pattern taken out, if any. */
export interface SeriesEvents {
  events: SeriesEvent[];
  pattern: SeasonalPattern | null;
}

/**
 * Two change points at most this many points apart can be one transient (a week of nights); a longer
 * excursion is a regression and its fix, each a step (the regression issue is closed as recovered).
 */
export const TRANSIENT_MAX_POINTS = 7;
/** A transient came back: the level after is within this share of the excursion from the level before. */
export const REVERT_SHARE = 1 / 3;
/** A drift's ramp spans at least this many points (ten nights): a shorter one is a step seen through noise. */
export const MIN_DRIFT_POINTS = 15;

/** The events of `values` (oldest first), sorted by where they start. See the module comment. */
export function seriesEvents(values: readonly number[], options: ChangePointOptions = {}): SeriesEvents {
  const maxP = options.maxP ?? DEFAULT_MAX_P;
  const minSegment = options.minSegment ?? DEFAULT_MIN_SEGMENT;
  const scale = options.scale ?? 'linear';
  const level = options.level ?? 0.95;
  if (values.length < minPointsForDetection(minSegment)) {
    detectChangePoints(values, options); // validates the options and values as it always did
    return { events: [], pattern: null };
  }
  // Validates and segments. Without a change point there is no edge of a cycle to take out either: the
  // pattern is looked for (and the series segmented again without it) only when there are change points.
  const found = detectChangePoints(values, options);
  const pattern = found.length > 1 ? seasonalPattern(values, maxP, cycleLengths(found)) : null;
  const adjusted = pattern ? withoutPattern(values, pattern) : [...values];
  let cps = pattern ? detectChangePoints(adjusted, options) : found;
  const std = robustStandardise(adjusted);
  if (std === null) return { events: [], pattern };
  // A cycle taken out leaves its own traces in the differences (the running level lags at its edges), which
  // the spread's segmentation reads as a change of spread: a series with a pattern is not searched for one.
  const noisier = pattern ? [] : noiseChanges(adjusted, maxP, minSegment);
  cps = cps.filter((c) => !partOfNoise(c, noisier, minSegment, scale));

  const z = std.z;
  const n = z.length;
  const units = new Units(std, scale, level);
  const all = levelSums(z);
  const segmentMean = (from: number, to: number) => rangeMean(all, from, to).mean;

  // Transients: out and back within TRANSIENT_MAX_POINTS.
  const events: SeriesEvent[] = [];
  const inTransient: Array<[number, number]> = [];
  const rest: ChangePoint[] = [];
  for (let k = 0; k < cps.length; k++) {
    const out = cps[k]!;
    const back = cps[k + 1];
    if (back && back.index - out.index <= TRANSIENT_MAX_POINTS) {
      const start = k > 0 ? cps[k - 1]!.index : 0;
      const end = k + 2 < cps.length ? cps[k + 2]!.index : n;
      const before = segmentMean(start, out.index);
      const during = segmentMean(out.index, back.index);
      const after = segmentMean(back.index, end);
      if (Math.abs(after - before) <= REVERT_SHARE * Math.abs(during - before)) {
        events.push({
          kind: 'transient',
          from: out.index - 1,
          to: back.index,
          before: out.meanBefore,
          after: out.meanAfter,
          relativeChange: out.relativeChange,
          ci: out.ci,
          p: out.p,
          back: back.meanAfter,
          changePoints: [out, back],
        });
        inTransient.push([out.index, back.index]);
        k++;
        continue;
      }
    }
    rest.push(out);
  }

  // Drifts and steps, on the level without the transients' points.
  const sums = levelSums(z, (i) => !inTransient.some(([a, b]) => i >= a && i < b));
  const bounds = (k: number) => [
    k > 0 ? rest[k - 1]!.index : 0,
    k + 1 < rest.length ? rest[k + 1]!.index : n,
  ];
  for (let k = 0; k < rest.length;) {
    let last = k;
    const up = rest[k]!.difference > 0;
    while (last + 1 < rest.length && rest[last + 1]!.difference > 0 === up) last++;
    const run = rest.slice(k, last + 1);
    const [from] = bounds(k);
    const [, to] = bounds(last);
    const whole = driftOf(sums, from!, to!, run);
    if (whole) events.push(units.drift(whole, run));
    else {
      const each = run.map((c, i) => {
        const [a, b] = bounds(k + i);
        return driftOf(sums, a!, b!, [c]);
      });
      // Every change point of the run a drift on its own: neighbouring ramps of one direction are one
      // gradual change, so the run is one drift (its best ramp, whatever the staircase's fit).
      const merged = run.length > 1 && each.every((d) => d !== null) ? rampOf(sums, from!, to!, run) : null;
      if (merged) events.push(units.drift(merged, run));
      else run.forEach((c, i) => events.push(each[i] ? units.drift(each[i]!, [c]) : step(c)));
    }
    k = last + 1;
  }
  for (const c of noisier) events.push(units.noisier(c));
  return { events: events.sort((a, b) => a.from - b.from || a.to - b.to), pattern };
}

/**
 * The periods a cycle would have left these change points at: it makes two edges a cycle, so the distance
 * between every other change point, and twice the distance between neighbours (a symmetric cycle whose
 * other edges were not found), each give or take a point.
 */
function cycleLengths(cps: readonly ChangePoint[]): number[] {
  const lengths = new Set<number>();
  for (let j = 0; j + 1 < cps.length; j++) {
    const spans = [2 * (cps[j + 1]!.index - cps[j]!.index)];
    if (j + 2 < cps.length) spans.push(cps[j + 2]!.index - cps[j]!.index);
    for (const span of spans) for (const d of [-1, 0, 1]) lengths.add(span + d);
  }
  return [...lengths];
}

/** The best ramp of [from, to) when it beats the staircase of `run` by Schwarz's criterion, else null. */
function driftOf(sums: LevelSums, from: number, to: number, run: readonly ChangePoint[]): RampFit | null {
  const ramp = rampOf(sums, from, to, run);
  if (ramp === null) return null;
  const stairs = staircaseFit(
    sums,
    from,
    to,
    run.map((c) => c.index),
  );
  return bic(ramp, RAMP_PARAMETERS) < bic(stairs, 2 * run.length + 1) ? ramp : null;
}

/** The best ramp of [from, to) that spans the change points of `run`. */
function rampOf(sums: LevelSums, from: number, to: number, run: readonly ChangePoint[]): RampFit | null {
  return bestRamp(sums, from, to, MIN_DRIFT_POINTS, {
    first: run[0]!.index,
    last: run[run.length - 1]!.index,
  });
}

/**
 * What a ramp is charged in Schwarz's criterion: two levels and one place, as a step. A step is a ramp of
 * width 1, so the width is what tells them apart, not a parameter of its own: a ramp of at least
 * MIN_DRIFT_POINTS beats one change point when it fits better, and m change points when it fits no worse
 * than 2(m − 1) parameters cost. (Charging the width as a fourth parameter missed a third of the 2 %
 * drifts over 60 nights at 1 % noise: the ramp fits such a drift better than one step by about 5 noise
 * variances, no more than ln n; bench/changepoint-patterns.ts.)
 */
const RAMP_PARAMETERS = 3;

function step(c: ChangePoint): SeriesEvent {
  return {
    kind: 'step',
    from: c.index - 1,
    to: c.index,
    before: c.meanBefore,
    after: c.meanAfter,
    relativeChange: c.relativeChange,
    ci: c.ci,
    p: c.p,
    changePoints: [c],
  };
}

/**
 * A level change point at the place the spread changed, no larger than the new spread, is the noise's: a
 * noisier runner's nights are not all slower, but their distribution moves a little with the spread.
 */
function partOfNoise(
  c: ChangePoint,
  noisier: readonly NoiseChange[],
  minSegment: number,
  scale: 'linear' | 'log',
): boolean {
  const shift = scale === 'log' ? Math.abs(Math.log(c.meanAfter / c.meanBefore)) : Math.abs(c.difference);
  return noisier.some((nc) => Math.abs(nc.index - c.index) <= minSegment && shift <= nc.spreadAfter);
}

/** From the fits' robust z-scores back to the data's units. */
class Units {
  constructor(
    private readonly std: RobustStandardised,
    private readonly scale: 'linear' | 'log',
    private readonly level: number,
  ) {}

  /** A level in z units as the data's (geometric on the log scale). */
  levelOf(z: number): number {
    const v = unscale(this.std, this.std.location + this.std.scale * z);
    return this.scale === 'log' ? clampFinite(Math.exp(v)) : v;
  }

  /** A difference of levels in z units as the data's. */
  differenceOf(dz: number): number {
    return unscale(this.std, this.std.scale * dz);
  }

  relative(before: number, dz: number): number {
    const d = this.differenceOf(dz);
    return this.scale === 'log' ? clampFinite(Math.expm1(d)) : clampFinite(d / Math.abs(before));
  }

  drift(fit: RampFit, run: readonly ChangePoint[]): SeriesEvent {
    const before = this.levelOf(fit.a);
    const width = fit.end - fit.start;
    const df = Math.max(1, fit.n - 4);
    const t = fit.delta / fit.seDelta;
    const p = Number.isFinite(t) ? Math.min(1, 2 * studentTCdf(-Math.abs(t), df)) : 0;
    const q = studentTQuantile(0.5 + this.level / 2, df);
    const relativeChange = this.relative(before, fit.delta);
    return {
      kind: 'drift',
      from: fit.start,
      to: fit.end,
      before,
      after: this.levelOf(fit.a + fit.delta),
      relativeChange,
      ci:
        this.scale === 'log'
          ? {
              level: this.level,
              lower: this.relative(before, fit.delta - q * fit.seDelta),
              upper: this.relative(before, fit.delta + q * fit.seDelta),
            }
          : null,
      p,
      perPoint:
        this.scale === 'log' ? Math.expm1(this.differenceOf(fit.delta) / width) : relativeChange / width,
      changePoints: [...run],
    };
  }

  noisier(c: NoiseChange): SeriesEvent {
    return {
      kind: 'noisier',
      from: c.index - 1,
      to: c.index,
      before: c.spreadBefore,
      after: c.spreadAfter,
      relativeChange: c.ratio - 1,
      ci: null,
      p: c.p,
      changePoints: [],
    };
  }
}
