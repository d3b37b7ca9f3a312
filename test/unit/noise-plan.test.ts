import { describe, expect, it } from 'vitest';
import { designSequential } from '../../src/core/compare/analysis/adaptive.js';
import { minRoundsFor, resolvableChangePct } from '../../src/core/compare/power.js';
import { resolutionOf, resolutionWarning } from '../../src/flows/compare/noise/noise-design.js';
import { withNoiseWarnings } from '../../src/flows/compare/noise/noise-warnings.js';
import type { NoiseEstimate } from '../../src/core/compare/noise-design-types.js';
import type { RunComparison } from '../../src/core/compare/comparison-types.js';
import type { RunResult } from '../../src/core/results/result-types.js';

const noise = (perRoundCvPct: number): NoiseEstimate => ({
  workload: 'ro',
  clients: 8,
  id: 'ro@8',
  source: 'calibration',
  runId: 'cal-1',
  date: '2026-11-20T10:00:00Z',
  points: 10,
  pairedCvPct: perRoundCvPct,
  runCvPct: null,
  perRoundCvPct,
  planningCvPct: perRoundCvPct,
});

describe('resolutionOf', () => {
  it('recommends the fewest rounds that resolve the threshold', () => {
    for (const cv of [0.5, 2, 5]) {
      for (const hypotheses of [1, 8]) {
        const r = resolutionOf(noise(cv), { rounds: 10, hypotheses, alpha: 0.05, thresholdPct: 3 });
        const at = (n: number) =>
          resolvableChangePct({
            test: 'signed-rank',
            rounds: n,
            level: 0.05,
            hypotheses,
            pairedCvPct: cv,
            power: 0.8,
          });
        const n = r.recommendedRounds!;
        expect(at(n)).toBeLessThanOrEqual(3);
        if (n > minRoundsFor('signed-rank', hypotheses, 0.05)) expect(at(n - 1)).toBeGreaterThan(3);
        expect(r.resolvablePct).toBe(at(10));
        expect(r.belowResolvable).toBe(3 < at(10));
        // More rounds than recommended are never needed, fewer never suffice.
        expect(r.belowResolvable).toBe(n > 10);
      }
    }
  });

  it('plans with the upper bound of the noise, not the bare estimate', () => {
    const input = { rounds: 10, hypotheses: 1, alpha: 0.05, thresholdPct: 2 };
    const raised = resolutionOf({ ...noise(2), planningCvPct: 3 }, input);
    expect(raised.resolvablePct).toBe(resolutionOf(noise(3), input).resolvablePct);
    expect(raised.resolvablePct).toBeGreaterThan(resolutionOf(noise(2), input).resolvablePct);
    expect(resolutionWarning(raised)).toContain('at 3.0% noise per round (2.0% measured, from calibration');
  });

  it('grows with the noise and shrinks with the rounds', () => {
    const input = { rounds: 10, hypotheses: 4, alpha: 0.05, thresholdPct: 2 };
    const low = resolutionOf(noise(1), input);
    const high = resolutionOf(noise(4), input);
    expect(high.resolvablePct).toBeGreaterThan(low.resolvablePct);
    expect(high.recommendedRounds!).toBeGreaterThan(low.recommendedRounds!);
    expect(resolutionOf(noise(4), { ...input, rounds: 40 }).resolvablePct).toBeLessThan(high.resolvablePct);
  });

  it('uses the adaptive design when there is one, with its budget as the rounds', () => {
    const plan = designSequential({ maxRounds: 30 });
    const r = resolutionOf(noise(3), {
      rounds: 5,
      adaptive: plan,
      hypotheses: 2,
      alpha: 0.05,
      thresholdPct: 1,
    });
    expect(r.rounds).toBe(30);
    expect(r.belowResolvable).toBe(true);
    expect(r.recommendedRounds!).toBeGreaterThan(30);
  });

  it('says in the warning the cell, threshold, resolvable change, source and the rounds needed', () => {
    const r = resolutionOf(noise(6), { rounds: 6, hypotheses: 1, alpha: 0.05, thresholdPct: 1 });
    const text = resolutionWarning(r);
    expect(text).toContain('ro@8: the 1% threshold');
    expect(text).toContain(`with 6 rounds (${r.resolvablePct.toFixed(1)}% at 6.0% noise per round`);
    expect(text).toContain('calibration cal-1 (2026-11-20, 10 rounds)');
    expect(text).toContain(`about ${r.recommendedRounds} rounds would resolve it`);
  });
});

describe('withNoiseWarnings', () => {
  it('leaves the comparison alone with a store that cannot be read', async () => {
    const comparison = { warnings: ['w'] } as unknown as RunComparison;
    const save = async () => ({ id: 'x' });
    const logger = { warn: () => {} } as never;
    expect(
      await withNoiseWarnings(comparison, {} as RunResult, { description: 'd', save } as never, logger),
    ).toBe(comparison);
    expect(await withNoiseWarnings(comparison, {} as RunResult, undefined, logger)).toBe(comparison);
  });

  it('logs a store that fails to read, and keeps the comparison', async () => {
    const comparison = { warnings: [], comparisons: [] } as unknown as RunComparison;
    const warned: string[] = [];
    const store = {
      list: () => Promise.reject(new Error('connection refused')),
      load: () => Promise.reject(new Error('unused')),
    };
    const result = {
      arms: [{}, {}],
      workloads: {},
      plan: { cells: [{ workload: 'w', clients: 1 }], rounds: 3 },
      environment: {},
    } as never;
    const out = await withNoiseWarnings(comparison, result, store, {
      warn: (m: string) => warned.push(m),
    } as never);
    expect(out).toBe(comparison);
    expect(warned).toEqual([expect.stringContaining('connection refused')]);
  });
});
