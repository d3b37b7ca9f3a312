/**
 * Change points of every series of the stored history, with what a maintainer needs to act on one: the
 * commit range (the last commit measured before the change and the first after it), the relative change
 * of the median with a CI, p, and whether it is a regression or an improvement for that metric.
 *
 * Each change is one event of a kind (series-events.ts): a step at one commit, a drift over many (one
 * event, not a staircase), a transient that reverted; a change of noise is kept apart (noiseChanges), never
 * a regression; a runner's periodic pattern and isolated outliers are none.
 *
 * A series is analysed segment by segment (definition-segments.ts): a change point never spans a change of
 * the workload's definition, and where the series stands now is its newest segment's (currentChangePoint).
 */
import { DEFAULT_MAX_P, DEFAULT_MIN_SEGMENT, minPointsForDetection } from '../stats/e-divisive.js';
import { seriesEvents, type SeriesEvent } from './series-events.js';
import { buildSeries, type Series, type SeriesPoint, type HistoryRun } from './series.js';
import { definitionSegments, type DefinitionSegment } from './definition-segments.js';
import { answerCosts, type AnswerCosts } from './answer-costs.js';

export interface HistoryOptions {
  /** Significance level of a change point (default 0.001). */
  maxP?: number;
  /** Fewest runs on either side of a change point (default 3). */
  minSegment?: number;
  /** Changes no larger than this fraction are not reported (default 0). */
  minMagnitude?: number;
}

export interface SeriesChangePoint {
  /** Index in the series' points of firstAfter: the first point that changed. */
  index: number;
  /** The direction (a transient's: of its excursion). */
  kind: 'regression' | 'improvement';
  /**
   * step: a level shift between two neighbouring runs; drift: a gradual change over many runs (lastBefore
   * is its start, `drift.end` its end); transient: a dip or spike that came back (`transient.back`).
   */
  shape: 'step' | 'drift' | 'transient';
  /** A drift: its first run at the new level, how many runs it took and the relative change per run. */
  drift?: { end: SeriesPoint; endIndex: number; runs: number; perRun: number };
  /** A transient: the first run back at the level before it. */
  transient?: { back: SeriesPoint; backIndex: number };
  /**
   * For a regression: the last good commit's point, and the first bad one (a drift: the last run before it
   * began and the first that moved).
   */
  lastBefore: SeriesPoint;
  firstAfter: SeriesPoint;
  /** Geometric means of the medians before and after (a transient: during), in the metric's unit. */
  before: number;
  after: number;
  /** after/before − 1, with its 95% CI. */
  relativeChange: number;
  ciLower: number;
  ciUpper: number;
  p: number;
  nBefore: number;
  nAfter: number;
  /** Why this change point is suspect (runner drift: src/core/history/night-watch.ts); absent when it is not. */
  suspect?: string;
}

export interface SeriesAnalysis {
  series: Series;
  /**
   * 'too-few-points': fewer than `needed` runs since the workload's definition last changed (its newest
   * segment), nothing to say of it yet.
   */
  status: 'analysed' | 'too-few-points';
  needed: number;
  /** Oldest first, each inside one segment. */
  changePoints: SeriesChangePoint[];
  /** The series split where the workload's definition changed, oldest first (one without a change). */
  segments: DefinitionSegment[];
  /** Where the series became noisier (a change of spread, not of level: never a regression), oldest first. */
  noiseChanges: NoiseChange[];
}

/** Where a series became noisier: its first noisier run, and the spread after over the spread before. */
export interface NoiseChange {
  index: number;
  lastBefore: SeriesPoint;
  firstAfter: SeriesPoint;
  /** Robust spread of one run's noise (relative, on ln of the medians) before and after. */
  spreadBefore: number;
  spreadAfter: number;
  ratio: number;
}

export interface HistoryAnalysis {
  options: Required<HistoryOptions>;
  runs: number;
  series: SeriesAnalysis[];
  /** What each run's answer cost, for the site's cost chart. */
  costs: AnswerCosts;
}

/** Builds the series of the runs and analyses each one. Pure: no I/O, deterministic. */
export function analyseHistory(runs: readonly HistoryRun[], options: HistoryOptions = {}): HistoryAnalysis {
  const resolved: Required<HistoryOptions> = {
    maxP: options.maxP ?? DEFAULT_MAX_P,
    minSegment: options.minSegment ?? DEFAULT_MIN_SEGMENT,
    minMagnitude: options.minMagnitude ?? 0,
  };
  return {
    options: resolved,
    runs: runs.length,
    series: buildSeries(runs).map((s) => analyseSeries(s, resolved)),
    costs: answerCosts(runs),
  };
}

export function analyseSeries(series: Series, options: Required<HistoryOptions>): SeriesAnalysis {
  const needed = minPointsForDetection(options.minSegment);
  const segments = definitionSegments(series.points);
  const current = segments.at(-1);
  const events = segments
    .filter((seg) => seg.end - seg.start >= needed)
    .flatMap((seg) => segmentEvents(series, seg, options));
  return {
    series,
    status: current !== undefined && current.end - current.start >= needed ? 'analysed' : 'too-few-points',
    needed,
    changePoints: events.filter((e) => e.kind !== 'noisier').map((e) => changePointOf(series, e)),
    segments,
    noiseChanges: events.filter((e) => e.kind === 'noisier').map((e) => noiseChangeOf(series, e)),
  };
}

/**
 * The latest level change (a step or a drift) of the series' newest segment: where it stands now. A
 * transient came back, so it is no standing; a change point of an earlier definition is history, not the
 * current standing; undefined when the newest segment has none.
 */
export function currentChangePoint(
  analysis: Pick<SeriesAnalysis, 'changePoints' | 'segments'>,
): SeriesChangePoint | undefined {
  const cp = analysis.changePoints.findLast(isLevelChange);
  const start = analysis.segments.at(-1)?.start ?? 0;
  return cp !== undefined && cp.index > start ? cp : undefined;
}

/** Whether a change point moved the level for good: a step or a drift, not a transient that came back. */
export function isLevelChange(cp: Pick<SeriesChangePoint, 'shape'>): boolean {
  return cp.shape !== 'transient';
}

/** A segment's events (indices in the whole series), found on ln of the medians. */
function segmentEvents(
  series: Series,
  segment: DefinitionSegment,
  options: Required<HistoryOptions>,
): SeriesEvent[] {
  const points = series.points.slice(segment.start, segment.end);
  const { events } = seriesEvents(
    points.map((p) => Math.log(p.median)),
    { ...options, scale: 'log' },
  );
  return events.map((e) => ({ ...e, from: e.from + segment.start, to: e.to + segment.start }));
}

function changePointOf(series: Series, e: SeriesEvent): SeriesChangePoint {
  const first = e.changePoints[0]!;
  const last = e.changePoints[e.changePoints.length - 1]!;
  const cp: SeriesChangePoint = {
    index: e.from + 1,
    kind: e.relativeChange < 0 === (series.better === 'higher') ? 'regression' : 'improvement',
    shape: e.kind === 'drift' ? 'drift' : e.kind === 'transient' ? 'transient' : 'step',
    lastBefore: series.points[e.from]!,
    firstAfter: series.points[e.from + 1]!,
    before: e.before,
    after: e.after,
    relativeChange: e.relativeChange,
    ciLower: e.ci!.lower,
    ciUpper: e.ci!.upper,
    p: e.p,
    nBefore: first.nBefore,
    nAfter: last.nAfter,
  };
  if (e.kind === 'drift') {
    cp.drift = { end: series.points[e.to]!, endIndex: e.to, runs: e.to - e.from, perRun: e.perPoint! };
  }
  if (e.kind === 'transient') cp.transient = { back: series.points[e.to]!, backIndex: e.to };
  return cp;
}

function noiseChangeOf(series: Series, e: SeriesEvent): NoiseChange {
  return {
    index: e.to,
    lastBefore: series.points[e.from]!,
    firstAfter: series.points[e.to]!,
    spreadBefore: e.before,
    spreadAfter: e.after,
    ratio: e.relativeChange + 1,
  };
}
