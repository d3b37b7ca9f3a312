/**
 * Latency as a gated metric: a workload's `metrics: [tps, p99]` makes every cell one hypothesis per metric,
 * all of them in one Holm family, all of them deciding the verdict; an adaptive look keeps a cell open until
 * every gated metric of it is decided. Seeded synthetic documents through the real compare code.
 */
import { decideRun } from '../../../src/flows/compare/pipeline/decide-run.js';
import { decide } from '../../../src/core/compare/decision/decision.js';
import { describe, expect, it } from 'vitest';
import { adaptiveLook, designSequential } from '../../../src/core/compare/analysis/adaptive.js';
import { compareRun } from '../../../src/core/compare/analysis/compare-run.js';
import type { Sample } from '../../../src/core/results/result-types.js';
import { renderComparisonText } from '../../../src/core/report/terminal/comparison-text.js';
import { renderMarkdownReport } from '../../../src/core/report/markdown/markdown.js';
import { seededRandom } from '../../../src/core/stats/seeded-random.js';
import { document, gaussian, sample } from '../../../testkit/synthetic-run.js';

interface Spec {
  seed: number;
  rounds: number;
  metrics?: string[];
  tpsNoise?: number;
  p99Noise?: number;
  /** Head's p99 factor per client count (1 = unchanged). */
  p99Effect?: (clients: number) => number;
}

function run(spec: Spec) {
  const normal = gaussian(seededRandom(spec.seed));
  const samples: Sample[] = [];
  for (let round = 1; round <= spec.rounds; round++) {
    for (const clients of [1, 8]) {
      for (const arm of ['base', 'head']) {
        const effect = arm === 'head' ? (spec.p99Effect?.(clients) ?? 1) : 1;
        samples.push(
          sample({
            round,
            workload: 'w',
            clients,
            arm,
            metrics: {
              tps: 10_000 * Math.exp((spec.tpsNoise ?? 0.01) * normal()),
              latencyP99Ms: 5 * effect * Math.exp((spec.p99Noise ?? 0.01) * normal()),
            },
          }),
        );
      }
    }
  }
  return document(['base', 'head'], { w: [1, 8] }, spec.rounds, samples, {
    ...(spec.metrics ? { w: { metrics: spec.metrics } } : {}),
  });
}

describe('gated latency metrics', () => {
  const doc = run({ seed: 3, rounds: 12, metrics: ['tps', 'p99'], p99Effect: (c) => (c === 8 ? 1.3 : 1) });

  it('a p99 regression with TPS unchanged fails the comparison; lower is better for latency', () => {
    const c = compareRun(doc);
    expect(c.gatedMetrics).toEqual(['tps', 'latencyP99Ms']);
    const arm = c.comparisons[0]!;
    expect(arm.cells.map((x) => x.metric)).toEqual(['tps', 'tps']);
    expect(arm.cells.every((x) => x.verdict !== 'regression')).toBe(true);
    const p99 = arm.otherMetricCells.find((x) => x.id === 'w@8')!;
    expect(p99).toMatchObject({ metric: 'latencyP99Ms', better: 'lower', verdict: 'regression' });
    expect(p99.deltaPct!).toBeGreaterThan(0);
    expect(arm.verdict).toBe('regression');
    expect(arm.decidingCells).toEqual(['w@8 p99']);
    expect(c.verdict).toBe('regression');
  });

  it('every gated metric of every cell is one hypothesis of one Holm family', () => {
    const c = compareRun(doc);
    expect(c.comparisons[0]!.familySize).toBe(4);
    for (const cell of [...c.comparisons[0]!.cells, ...c.comparisons[0]!.otherMetricCells]) {
      expect(cell.familySize).toBe(4);
    }
    const tpsOnly = compareRun(run({ seed: 3, rounds: 12, p99Effect: (cl) => (cl === 8 ? 1.3 : 1) }));
    expect(tpsOnly.comparisons[0]!.familySize).toBe(2);
    expect(tpsOnly.comparisons[0]!.otherMetricCells).toEqual([]);
    expect(tpsOnly.verdict).not.toBe('regression'); // the p99 regression is not gated without `metrics`
  });

  it('--metric compares one metric in every cell (p99 selectable)', () => {
    const c = compareRun(doc, { metric: 'latencyP99Ms' });
    expect(c.gatedMetrics).toEqual(['latencyP99Ms']);
    expect(c.comparisons[0]!.otherMetricCells).toEqual([]);
    expect(c.comparisons[0]!.decidingCells).toEqual(['w@8']);
    expect(compareRun(doc, { metric: 'tps' }).comparisons[0]!.familySize).toBe(2);
  });

  it('an adaptive look keeps a cell open until every gated metric of it is decided', () => {
    // TPS steady (decided no-change), p99 very noisy and unchanged (undecided).
    const noisy = (metrics?: string[]) =>
      run({ seed: 11, rounds: 10, tpsNoise: 0.001, p99Noise: 0.3, ...(metrics ? { metrics } : {}) });
    const plan = designSequential({ schedule: [10, 20] });
    const tpsOnly = adaptiveLook(noisy(), plan, { look: 1 });
    expect(tpsOnly.decidedCells.map((d) => [d.label, d.verdict])).toEqual([
      ['w@1', 'no-change'],
      ['w@8', 'no-change'],
    ]);
    expect(tpsOnly.openCells).toEqual([]);
    const gated = adaptiveLook(noisy(['tps', 'p99']), plan, { look: 1 });
    expect(gated.decidedCells.every((d) => d.metric === 'tps')).toBe(true);
    expect(gated.openCells.map((c) => c.clients)).toEqual([1, 8]);
    expect(gated.history[0]!.open).toEqual(['head:w@1 p99', 'head:w@8 p99']);
    expect(gated.stop).toBe(false);
  });

  it('the text report and the PR comment show the latency rows, lower is better', () => {
    const c = compareRun(doc);
    const text = renderComparisonText(c, decide(c));
    expect(text).toMatch(/latency p99 \(ms, lower is better\):/);
    expect(text).toMatch(/decided by w@8 p99/);
    const md = renderMarkdownReport({
      result: doc,
      comparison: c,
      decision: decideRun(doc, c),
      commentId: 'x',
    });
    expect(md).toMatch(/\*\*latency p99\*\* \(ms, lower is better: a rise is a regression\)/);
    expect(md).toMatch(/\| base latency p99 \(median\) \|/);
    expect(md).toMatch(/^❌ \*\*1 regression\*\*: w at 8 clients, latency p99 \+/m);
  });

  it('a workload gating on p99 only has no TPS hypotheses', () => {
    const c = compareRun(run({ seed: 5, rounds: 12, metrics: ['p99'], p99Effect: () => 1.3 }));
    expect(c.gatedMetrics).toEqual(['latencyP99Ms']);
    expect(c.comparisons[0]!.cells).toEqual([]);
    expect(c.comparisons[0]!.otherMetricCells.map((x) => x.verdict)).toEqual(['regression', 'regression']);
    expect(c.verdict).toBe('regression');
  });
});
