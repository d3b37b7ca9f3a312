/**
 * Where a series stands, for the history index: its latest run's value and date, that value against the
 * median of the runs just before it, and the series' newest change point.
 *
 * The comparison with recent runs is descriptive (one run's median against a median of up to
 * TREND_WINDOW runs, no test): the newest change point is what the history calls a change, with its
 * calibrated p and CI (history-analysis.ts). A series too short to be analysed says so instead.
 */
import { currentChangePoint, type SeriesAnalysis, type SeriesChangePoint } from './history-analysis.js';
import type { SeriesPoint } from './series.js';

/**
 * How many runs before the latest its value is compared with: a median of five is not moved by one noisy
 * night (against the single previous run, every noisy night would read as a change) and still follows
 * the series within a week of nightly runs.
 */
export const TREND_WINDOW = 5;

export interface SeriesTrend {
  /** The newest run's point (value, date, commit). */
  latest: SeriesPoint;
  /** Runs in the series. */
  runs: number;
  /**
   * The median of the medians of the up to TREND_WINDOW runs before the latest, how many runs that is,
   * and latest / median − 1; null for a series of one run.
   */
  recent: { median: number; runs: number; change: number } | null;
  /** Whether the latest value is better, worse or the same as `recent` for this metric; null without it. */
  direction: 'better' | 'worse' | 'same' | null;
  /** The newest change point; null when there is none or the series is not analysed yet. */
  lastChangePoint: SeriesChangePoint | null;
  /** 'too-few-points': fewer than `needed` runs, no change points looked for yet. */
  status: SeriesAnalysis['status'];
  needed: number;
}

/**
 * The trend of an analysed series. Throws on a series without points (buildSeries makes none).
 *
 * @example seriesTrend(a) // { latest: {median: 40100, ...}, recent: {median: 40600, runs: 5, change: -0.0123}, ... }
 */
export function seriesTrend(analysis: SeriesAnalysis, window = TREND_WINDOW): SeriesTrend {
  const { points, better } = analysis.series;
  const latest = points[points.length - 1];
  if (!latest) throw new RangeError(`series ${analysis.series.id} has no points`);
  const before = points.slice(Math.max(0, points.length - 1 - window), -1).map((p) => p.median);
  let recent: SeriesTrend['recent'] = null;
  let direction: SeriesTrend['direction'] = null;
  if (before.length > 0) {
    const median = medianOf(before);
    const change = latest.median / median - 1;
    recent = { median, runs: before.length, change };
    direction = change === 0 ? 'same' : change > 0 === (better === 'higher') ? 'better' : 'worse';
  }
  return {
    latest,
    runs: points.length,
    recent,
    direction,
    lastChangePoint: currentChangePoint(analysis) ?? null,
    status: analysis.status,
    needed: analysis.needed,
  };
}

function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
