/**
 * Where a series stands, for the history index (src/core/history/trend.ts, sparkline.ts), on the nightly
 * history built from the noisy runner's real runs (noisy-history.ts: a 20% slowdown from night 26).
 */
import { describe, expect, it } from 'vitest';
import { analyseHistory, type SeriesAnalysis } from '../../../src/core/history/history-analysis.js';
import {
  SPARKLINE_HEIGHT,
  SPARKLINE_RUNS,
  SPARKLINE_WIDTH,
  sparkline,
} from '../../../src/core/report/history/sparkline.js';
import { TREND_WINDOW, seriesTrend } from '../../../src/core/history/trend.js';
import { commitSha, noisyHistory } from './noisy-history.js';

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

describe('seriesTrend', () => {
  it('gives the latest run, its change against the median of the five before, and the newest change point', () => {
    const [one] = analyseHistory(noisyHistory()).series;
    const trend = seriesTrend(one!);
    const medians = one!.series.points.map((p) => p.median);
    expect(TREND_WINDOW).toBe(5);
    expect(trend.latest.sha).toBe(commitSha(39));
    expect(trend.latest.date).toBe('2026-11-09T02:00:00.000Z');
    expect(trend.runs).toBe(40);
    const before = median(medians.slice(34, 39));
    expect(trend.recent).toEqual({ median: before, runs: 5, change: medians[39]! / before - 1 });
    expect(trend.direction).toBe(medians[39]! > before ? 'better' : 'worse');
    expect(trend.lastChangePoint).toMatchObject({ index: 26, kind: 'regression' });
    expect(trend.lastChangePoint!.firstAfter.sha).toBe(commitSha(26));
    expect(trend.status).toBe('analysed');
  });

  it('has no comparison and no change point for a first run, and says the series is not analysed yet', () => {
    const [one] = analyseHistory(noisyHistory({ nights: 1 })).series;
    expect(seriesTrend(one!)).toMatchObject({
      runs: 1,
      recent: null,
      direction: null,
      lastChangePoint: null,
      status: 'too-few-points',
      needed: 6,
    });
  });

  it('compares with the runs there are when there are fewer than five before the latest', () => {
    const [one] = analyseHistory(noisyHistory({ nights: 3 })).series;
    const medians = one!.series.points.map((p) => p.median);
    expect(seriesTrend(one!).recent).toEqual({
      median: (medians[0]! + medians[1]!) / 2,
      runs: 2,
      change: medians[2]! / ((medians[0]! + medians[1]!) / 2) - 1,
    });
  });

  it("reads the change by the metric's direction: higher latency is worse", () => {
    const runs = noisyHistory({ nights: 8, clients: [1], stepAt: 7, factor: 0.8 }).map((r) => ({
      ...r,
      samples: r.samples.map((s) => ({
        ...s,
        metrics: { ...s.metrics, latencyPctMs: 1500 / s.metrics.tps! },
      })),
    }));
    const series = analyseHistory(runs).series;
    const tps = series.find((s) => s.series.key.metric === 'tps')!;
    const latency = series.find((s) => s.series.key.metric === 'latencyPctMs')!;
    expect(seriesTrend(tps).recent!.change).toBeLessThan(-0.1);
    expect(seriesTrend(tps).direction).toBe('worse');
    expect(seriesTrend(latency).recent!.change).toBeGreaterThan(0.1);
    expect(seriesTrend(latency).direction).toBe('worse');
  });

  it('refuses a series without points', () => {
    const [one] = analyseHistory(noisyHistory({ nights: 1 })).series;
    const empty: SeriesAnalysis = { ...one!, series: { ...one!.series, points: [] } };
    expect(() => seriesTrend(empty)).toThrow(/has no points/);
  });
});

describe('sparkline', () => {
  it('spreads the values over the width, smallest at the bottom, the latest as a dot', () => {
    const s = sparkline([1, 2, 3]);
    expect(s.points).toBe('3,21 60,12 117,3');
    expect(s.last).toEqual({ x: 117, y: 3 });
    expect([s.width, s.height]).toEqual([SPARKLINE_WIDTH, SPARKLINE_HEIGHT]);
    expect(s.change).toBeNull();
  });

  it('draws a single run, or a flat series, on the middle line', () => {
    expect(sparkline([40_000])).toMatchObject({ points: '60,12', last: { x: 60, y: 12 } });
    expect(sparkline([5, 5, 5]).points).toBe('3,12 60,12 117,12');
  });

  it('shows the newest runs only, with the change point where it falls among them', () => {
    const values = Array.from({ length: 100 }, (_, i) => (i < 80 ? 100 : 80));
    const s = sparkline(values, { index: 80, kind: 'regression' });
    expect(s.points.split(' ')).toHaveLength(SPARKLINE_RUNS);
    // Runs 40-99 are shown: run 80 is the 41st, at 3 + 40 × 114 / 59 px.
    expect(s.change).toEqual({ x: 80.3, kind: 'regression' });
    expect(sparkline(values, { index: 30, kind: 'improvement' }).change).toBeNull();
  });

  it('refuses no values', () => {
    expect(() => sparkline([])).toThrow(RangeError);
  });
});
