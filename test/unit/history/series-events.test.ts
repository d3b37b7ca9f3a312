/**
 * The change-event stage (src/core/history/series-events.ts) on seeded series of the labelled pattern suite
 * (testkit/changepoint-patterns.ts), and what the nightly makes of its kinds: one regression issue for one
 * drift, none for a runner that became noisier.
 */
import { describe, expect, it } from 'vitest';
import { seriesEvents } from '../../../src/core/history/series-events.js';
import { analyseHistory } from '../../../src/core/history/history-analysis.js';
import type { HistoryRun } from '../../../src/core/history/series.js';
import { seededRandom } from '../../../src/core/stats/seeded-random.js';
import { normalQuantile } from '../../../src/core/stats/normal-quantile.js';
import { planIssueActions } from '../../../src/flows/nightly/regression-issues.js';
import {
  LENGTHS,
  NOISE_LEVELS,
  matches,
  patternNamed,
  patternSeries,
} from '../../../testkit/changepoint-patterns.js';
import { noisyHistory } from './noisy-history.js';

const log = { scale: 'log' } as const;
const SEEDS = [1, 2, 3, 4, 5];

describe('seriesEvents', () => {
  it('finds a level shift in noise as one step at the commit where it happened', () => {
    for (const seed of SEEDS) {
      const s = patternSeries(patternNamed('step 10 sd'), 'gauss-1%', 120, seed);
      const { events } = seriesEvents(s.values, log);
      expect(events.map((e) => [e.kind, e.to])).toEqual([['step', s.events[0]!.to]]);
    }
  });

  it('reports a drift of 2% over 60 nights as one drift event with its start, end, total and slope', () => {
    for (const seed of SEEDS) {
      const s = patternSeries(patternNamed('drift 2% / 60 nights'), 'gauss-0.5%', 120, seed);
      const planted = s.events[0]!;
      const { events } = seriesEvents(s.values, log);
      expect(events).toHaveLength(1);
      const [drift] = events;
      expect(drift!.kind).toBe('drift');
      expect(matches(drift!, planted)).toBe(true);
      // The planted total, in the direction planted, inside the event's interval.
      const total = Math.sign(s.values.at(-1)! - s.values[0]!) * 0.02;
      expect(Math.sign(drift!.relativeChange)).toBe(Math.sign(total));
      expect(drift!.ci!.lower).toBeLessThan(Math.expm1(Math.sign(total) * Math.log(1.02)));
      expect(drift!.ci!.upper).toBeGreaterThan(Math.expm1(Math.sign(total) * Math.log(1.02)));
      // The slope is the total spread over the drift's span.
      const span = drift!.to - drift!.from;
      expect(Math.log1p(drift!.perPoint!) * span).toBeCloseTo(Math.log1p(drift!.relativeChange), 10);
      expect(drift!.changePoints.length).toBeGreaterThan(0);
    }
  });

  it('reports a 2% drift over 60 nights in 1% noise as exactly one drift event in at least 27 of 30 series', () => {
    // 2 noise sd over 60 nights: one change point, or two, of E-Divisive; the ramp must win over them.
    let once = 0;
    for (const length of [120, 250, 400])
      for (let seed = 1; seed <= 10; seed++) {
        const s = patternSeries(patternNamed('drift 2% / 60 nights'), 'gauss-1%', length, seed);
        const { events } = seriesEvents(s.values, log);
        if (events.length === 1 && events[0]!.kind === 'drift') once++;
      }
    expect(once).toBeGreaterThanOrEqual(27);
  });

  it('finds nothing in pure noise, whatever its level and length', () => {
    for (const noise of NOISE_LEVELS)
      for (const length of LENGTHS)
        for (const seed of SEEDS) {
          const s = patternSeries(patternNamed('pure noise'), noise, length, seed);
          expect(seriesEvents(s.values, log).events, `${noise} ${length} ${seed}`).toEqual([]);
        }
  });

  it('finds nothing in a periodic runner pattern alone, and says which period it took out', () => {
    for (const seed of SEEDS) {
      const monthly = patternSeries(patternNamed('monthly cycle 4 sd'), 'gauss-1%', 250, seed);
      const found = seriesEvents(monthly.values, log);
      expect(found.events).toEqual([]);
      expect(found.pattern?.period).toBe(30);
      const weekly = patternSeries(patternNamed('weekly cycle 4 sd'), 'gauss-1%', 120, seed);
      expect(seriesEvents(weekly.values, log).events).toEqual([]);
    }
  });

  it('still finds a step at its commit through a periodic pattern', () => {
    for (const seed of SEEDS) {
      const s = patternSeries(patternNamed('step 5 sd + monthly cycle'), 'gauss-1%', 250, seed);
      const { events } = seriesEvents(s.values, log);
      expect(events.map((e) => e.kind)).toEqual(['step']);
      expect(matches(events[0]!, s.events[0]!)).toBe(true);
    }
  });

  it('finds nothing for isolated outliers', () => {
    for (const seed of SEEDS) {
      const s = patternSeries(patternNamed('outliers'), 'gauss-1%', 250, seed);
      expect(seriesEvents(s.values, log).events).toEqual([]);
    }
  });

  it('reports a short dip that reverts as one transient event', () => {
    const values = dipSeries(1);
    const { events } = seriesEvents(values, log);
    expect(events.map((e) => [e.kind, e.from, e.to])).toEqual([['transient', 59, 66]]);
    expect(events[0]!.relativeChange).toBeLessThan(0);
    expect(events[0]!.back! / events[0]!.before).toBeCloseTo(1, 1);
  });

  it('reports a variance change as noisier, and no level change', () => {
    const values = noisierSeries(1);
    const { events } = seriesEvents(values, log);
    expect(events.map((e) => e.kind)).toEqual(['noisier']);
    expect(Math.abs(events[0]!.to - 100)).toBeLessThanOrEqual(3);
    expect(events[0]!.after / events[0]!.before).toBeGreaterThan(1.5);
  });
});

describe('the nightly on the kinds', () => {
  it('opens one regression issue for a drift, saying it is a drift, with nothing to bisect', () => {
    // 100 nights, the last 60 losing 0.05% a night after 40 flat ones: -3% in all.
    const analysis = analyseHistory(historyOf((n) => (n < 40 ? 0 : -0.0005 * (n - 40))));
    const cps = analysis.series[0]!.changePoints;
    expect(cps.map((c) => [c.shape, c.kind])).toEqual([['drift', 'regression']]);
    const actions = planIssueActions(analysis, [], 'pgperf-bot');
    expect(actions.map((a) => a.kind)).toEqual(['open']);
    const open = actions[0] as { title: string; body: string };
    expect(open.title).toMatch(/drift -\d\.\d% over \d+ runs/);
    expect(open.body).toContain('a gradual change, one event; no single commit to bisect');
    expect(open.body).not.toContain('pgperf:bisect');
  });

  it('opens no regression issue for a runner that became noisier', () => {
    const values = noisierSeries(2);
    const analysis = analyseHistory(historyOf((n) => values[n]! - values[0]!, values.length, 0));
    expect(analysis.series[0]!.noiseChanges).toHaveLength(1);
    expect(analysis.series[0]!.changePoints).toEqual([]);
    expect(planIssueActions(analysis, [], 'pgperf-bot')).toEqual([]);
  });
});

/** 150 nights in 0.5% noise with a 6-night dip of 5% from night 60. */
function dipSeries(seed: number): number[] {
  const noise = gaussian(seed);
  return Array.from(
    { length: 150 },
    (_, i) => Math.log(50_000) + (i >= 60 && i < 66 ? -0.05 : 0) + 0.005 * noise(),
  );
}

/** 200 nights of ln TPS whose noise goes from 0.5% to 2.5% at night 100. */
function noisierSeries(seed: number): number[] {
  const noise = gaussian(seed);
  return Array.from({ length: 200 }, (_, i) => Math.log(50_000) + (i >= 100 ? 0.025 : 0.005) * noise());
}

function gaussian(seed: number): () => number {
  const random = seededRandom(seed);
  return () => normalQuantile(Math.min(Math.max(random(), 1e-12), 1 - 1e-12));
}

/**
 * A nightly history of one cell (1 client) whose every run measures e^(level(night)) times 50,000 TPS with
 * `sd` of lognormal noise per run (5 runs a night).
 */
function historyOf(level: (night: number) => number, nights = 100, sd = 0.003): HistoryRun[] {
  const noise = gaussian(7);
  return noisyHistory({ clients: [1], nights, stepAt: Infinity }).map((run, night) => ({
    ...run,
    samples: run.samples.map((s) => ({
      ...s,
      metrics: { ...s.metrics, tps: 50_000 * Math.exp(level(night) + sd * noise()) },
    })),
  }));
}
