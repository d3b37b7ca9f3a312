/**
 * The audit's findings (issue 15, item 6), each pinned by a test: the perfectly separated −10% example that
 * used to pass the gate, Holm across every head arm and cell, curve flags on a plateau, the paired test on
 * the real noisy-runner captures.
 */
import { describe, expect, it } from 'vitest';
import { compareRun } from '../../../src/core/compare/analysis/compare-run.js';
import type { RunComparison } from '../../../src/core/compare/comparison-types.js';
import { noisyRunnerSession1 } from '../../../testkit/noisy-runner.js';
import { document, sample, syntheticRun } from '../../../testkit/synthetic-run.js';

const BASE = [100_000, 100_500, 99_800, 100_200, 99_900];
const SEVEN = [1, 2, 4, 8, 16, 32, 64];

describe('the perfectly separated -10% example (5 rounds, 7 cells)', () => {
  const samples = SEVEN.flatMap((clients) =>
    BASE.flatMap((tps, i) => [
      sample({ round: i + 1, workload: 'select-only', clients, arm: 'base', metrics: { tps } }),
      sample({ round: i + 1, workload: 'select-only', clients, arm: 'head', metrics: { tps: 0.9 * tps } }),
    ]),
  );
  const result = document(['base', 'head'], { 'select-only': SEVEN }, 5, samples);

  it.each(['paired', 'unpaired'] as const)('is a likely regression the gate can fail (%s test)', (test) => {
    const c = compareRun(result, { test });
    expect(c.verdict).toBe('inconclusive'); // the design cannot certify it: 7 × min p ≥ 0.05
    expect(c.likelyRegressions).toHaveLength(7);
    expect(c.likelyRegressions[0]).toBe('head:select-only@1');
    for (const cell of c.comparisons[0]!.cells) {
      expect(cell.reasons.map((r) => r.code)).toContain('likely-regression');
      expect(cell.ci90!.upperPct).toBeLessThan(-9);
    }
    expect(c.warnings.join('\n')).toMatch(/regression likely in select-only@1, .*too few runs to certify/);
  });

  it('is certified as a regression once the design can reach α (10 rounds)', () => {
    const more = syntheticRun({
      seed: 1,
      rounds: 10,
      noise: 0.005,
      workloads: { 'select-only': SEVEN },
      effect: (arm) => (arm === 'head' ? 0.9 : 1),
    });
    expect(compareRun(more).verdict).toBe('regression');
  });
});

describe('likely regression for a lower-is-better metric', () => {
  const latency = (factor: number) =>
    document(
      ['base', 'head'],
      { w: SEVEN },
      5,
      SEVEN.flatMap((clients) =>
        BASE.flatMap((tps, i) => [
          sample({ round: i + 1, workload: 'w', clients, arm: 'base', metrics: { latencyAvgMs: tps / 1e5 } }),
          sample({
            round: i + 1,
            workload: 'w',
            clients,
            arm: 'head',
            metrics: { latencyAvgMs: (factor * tps) / 1e5 },
          }),
        ]),
      ),
    );

  it('flags latency that rose beyond +δ with too few rounds to certify, not latency that fell', () => {
    const slower = compareRun(latency(1.1), { metric: 'latencyAvgMs' });
    expect(slower.verdict).toBe('inconclusive');
    expect(slower.likelyRegressions).toHaveLength(7);
    expect(compareRun(latency(1 / 1.1), { metric: 'latencyAvgMs' }).likelyRegressions).toEqual([]);
  });
});

describe('Holm across every head arm and cell', () => {
  it('keeps the A/A/A family-wise false significance at alpha', () => {
    const replications = 200;
    let falseSignificance = 0;
    const significant = (c: RunComparison) =>
      c.comparisons.some((a) => a.cells.some((x) => x.pAdjusted !== null && x.pAdjusted < c.testAlpha));
    for (let seed = 1; seed <= replications; seed++) {
      const c = compareRun(
        syntheticRun({
          seed,
          rounds: 10,
          arms: ['base', 'a', 'b'],
          workloads: { w: [1, 2, 4, 8] },
          noise: 0.02,
        }),
      );
      expect(c.comparisons[0]!.familySize).toBe(8);
      if (significant(c)) falseSignificance++;
    }
    // 3 binomial standard errors of 5% over 200 replicates: 0.046.
    expect(falseSignificance / replications).toBeLessThanOrEqual(0.05 + 0.046);
  });
});

describe('curve flags on a plateau', () => {
  it('do not flip in A/A when several client counts tie at the peak', () => {
    const shape: Record<number, number> = {
      1: 2000,
      2: 3900,
      4: 7000,
      8: 10_000,
      16: 10_050,
      32: 9980,
      64: 7900,
    };
    let moved = 0;
    let argmaxMoved = 0;
    const replications = 100;
    for (let seed = 1; seed <= replications; seed++) {
      const r = syntheticRun({
        seed,
        rounds: 6,
        noise: 0.03,
        workloads: { tpcb: Object.keys(shape).map(Number) },
        level: (_, clients) => shape[clients]!,
      });
      const [curve] = compareRun(r).comparisons[0]!.curves;
      if (curve!.peakMoved || curve!.collapseMoved) moved++;
      if (curve!.base.peakClients !== curve!.head.peakClients) argmaxMoved++;
    }
    expect(argmaxMoved / replications).toBeGreaterThan(0.3); // the bare argmax wanders on the plateau
    expect(moved / replications).toBeLessThan(0.05);
  });

  it('still report a real move of the peak and of the collapse', () => {
    const shape: Record<number, number> = { 1: 1000, 4: 3500, 16: 9000, 32: 10_000, 64: 9500, 128: 6000 };
    const r = syntheticRun({
      seed: 2,
      rounds: 6,
      workloads: { tpcb: Object.keys(shape).map(Number) },
      level: (_, clients) => shape[clients]!,
      effect: (arm, _, clients) => (arm === 'head' ? (clients === 128 ? 1.8 : clients === 32 ? 0.85 : 1) : 1),
    });
    const [curve] = compareRun(r).comparisons[0]!.curves;
    expect(curve).toMatchObject({ peakMoved: true, collapseMoved: true });
    expect(curve!.head.peakClients).toBe(128);
  });
});

describe('the paired test on the real noisy-runner captures', () => {
  it('calls the real A/A pair (base vs a rebuild) no regression, and a planted -15% a regression or likely one', () => {
    const aa = compareRun(noisyRunnerSession1());
    expect(['no-change', 'inconclusive']).toContain(aa.verdict);
    expect(aa.likelyRegressions).toEqual([]);
    expect(aa.primaryTest).toBe('signed-rank');
    const slowed = noisyRunnerSession1();
    for (const s of slowed.samples) if (s.arm === 'base-rebuilt') s.metrics.tps! *= 0.85;
    const c = compareRun(slowed);
    expect(c.verdict === 'regression' || c.likelyRegressions.length > 0).toBe(true);
    const unpaired = compareRun(slowed, { test: 'unpaired' });
    // The paired p is smaller in every cell: the rounds' shared swings cancel.
    c.comparisons[0]!.cells.forEach((cell, i) =>
      expect(cell.p!).toBeLessThan(unpaired.comparisons[0]!.cells[i]!.p!),
    );
  });
});
