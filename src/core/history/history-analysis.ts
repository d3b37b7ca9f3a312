/**
 * Change points of every series of the stored history, with what a maintainer needs to act on one: the
 * commit range (the last commit measured before the change and the first after it), the relative change
 * of the median with a CI, p, and whether it is a regression or an improvement for that metric.
 */
import {
  DEFAULT_MAX_P,
  DEFAULT_MIN_SEGMENT,
  detectChangePoints,
  minPointsForDetection,
} from '../stats/e-divisive.js';
import { buildSeries, type Series, type SeriesPoint, type HistoryRun } from './series.js';
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
  /** 'too-few-points': fewer than `needed` runs, no analysis yet. */
  status: 'analysed' | 'too-few-points';
  needed: number;
  /** Oldest first. */
  changePoints: SeriesChangePoint[];
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
  if (series.points.length < needed) return { series, status: 'too-few-points', needed, changePoints: [] };
  const found = detectChangePoints(
    series.points.map((p) => Math.log(p.median)),
    { ...options, scale: 'log' },
  );
  return {
    series,
    status: 'analysed',
    needed,
    changePoints: found.map((c) => ({
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
    })),
  };
}
