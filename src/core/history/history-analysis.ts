/**
 * Change points of every series of the stored history, with what a maintainer needs to act on one: the
 * commit range (the last commit measured before the change and the first after it), the relative change
 * of the median with a CI, p, and whether it is a regression or an improvement for that metric.
 *
 * A series is analysed segment by segment (definition-segments.ts): a change point never spans a change of
 * the workload's definition, and where the series stands now is its newest segment's (currentChangePoint).
 */
import {
  DEFAULT_MAX_P,
  DEFAULT_MIN_SEGMENT,
  detectChangePoints,
  minPointsForDetection,
} from '../stats/e-divisive.js';
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
  /** Index in the series' points of the first point of the new regime. */
  index: number;
  kind: 'regression' | 'improvement';
  /** For a regression: the last good commit's point, and the first bad one. */
  lastBefore: SeriesPoint;
  firstAfter: SeriesPoint;
  /** Geometric means of the medians before and after (back to the metric's unit). */
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
  const changePoints = segments
    .filter((seg) => seg.end - seg.start >= needed)
    .flatMap((seg) => segmentChangePoints(series, seg, options));
  return {
    series,
    status: current !== undefined && current.end - current.start >= needed ? 'analysed' : 'too-few-points',
    needed,
    changePoints,
    segments,
  };
}

/**
 * The latest change point of the series' newest segment: where it stands now. A change point of an earlier
 * definition is history, not the current standing; undefined when the newest segment has none.
 */
export function currentChangePoint(
  analysis: Pick<SeriesAnalysis, 'changePoints' | 'segments'>,
): SeriesChangePoint | undefined {
  const cp = analysis.changePoints.at(-1);
  const start = analysis.segments.at(-1)?.start ?? 0;
  return cp !== undefined && cp.index > start ? cp : undefined;
}

/** The change points of one segment, indexed in the whole series. */
function segmentChangePoints(
  series: Series,
  segment: DefinitionSegment,
  options: Required<HistoryOptions>,
): SeriesChangePoint[] {
  const points = series.points.slice(segment.start, segment.end);
  const found = detectChangePoints(
    points.map((p) => Math.log(p.median)),
    { ...options, scale: 'log' },
  );
  return found.map((f): SeriesChangePoint => {
    const c = { ...f, index: f.index + segment.start };
    return {
      index: c.index,
      kind: c.relativeChange < 0 === (series.better === 'higher') ? 'regression' : 'improvement',
      lastBefore: series.points[c.index - 1]!,
      firstAfter: series.points[c.index]!,
      before: c.meanBefore,
      after: c.meanAfter,
      relativeChange: c.relativeChange,
      ciLower: c.ci!.lower,
      ciUpper: c.ci!.upper,
      p: c.p,
      nBefore: c.nBefore,
      nAfter: c.nAfter,
    };
  });
}
