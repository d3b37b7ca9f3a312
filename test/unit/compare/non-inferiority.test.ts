/**
 * The pass question (non-inferiority, issue #21 item 4): a cell passes when its bound on the worse side
 * excludes −δ at the level the look spends; 'no-change' only when the interval is also inside ±δ, else
 * 'not-worse'. Deterministic: hand-made log-ratios and seeded synthetic runs.
 */
import { describe, expect, it } from 'vitest';
import {
  PASS_HORIZON_ROUNDS,
  adaptiveLook,
  passLevels,
  designSequential,
  sequentialDesignFromJson,
} from '../../../src/core/compare/analysis/adaptive.js';
import { compareRun } from '../../../src/core/compare/analysis/compare-run.js';
import { decide } from '../../../src/core/compare/decision/decision.js';
import { overallVerdict } from '../../../src/core/compare/overall.js';
import { shiftStatistics } from '../../../src/core/compare/shift-statistics.js';
import { decideVerdict } from '../../../src/core/compare/verdict.js';
import type { Sample } from '../../../src/core/results/result-types.js';
import { seededRandom } from '../../../src/core/stats/seeded-random.js';
import { document, gaussian, sample } from '../../../testkit/synthetic-run.js';

/** Paired statistics of per-round ratios head/base (base 10 000 TPS each round). */
function paired(ratios: number[], equivalenceLevel?: number) {
  const base = new Map(ratios.map((_, i) => [i + 1, 10_000]));
  const head = new Map(ratios.map((r, i) => [i + 1, 10_000 * r]));
  return shiftStatistics([...base.values()], [...head.values()], {
    rounds: { base, head },
    ...(equivalenceLevel ? { equivalenceLevel } : {}),
  });
}

describe('the per-cell pass rule', () => {
  it('passes as not-worse when the worse-side bound is above −δ but the interval reaches +δ', () => {
    // 12 rounds of +1% … +4%: the one-sided bound is above −2%, the interval reaches beyond +2%.
    const ratios = [1.01, 1.04, 1.02, 1.035, 1.015, 1.03, 1.025, 1.01, 1.04, 1.02, 1.03, 1.015];
    const cell = decideVerdict(paired(ratios), { alpha: 1e-6 }); // α so small nothing is certified
    expect(cell.verdict).toBe('not-worse');
    expect(cell.reasons[0]!.code).toBe('not-worse-than-threshold');
    expect(cell.reasons[0]!.message).toMatch(/not worse than base by 2% or more.*not 'no change'/);
    // The same data for a lower-is-better metric: head is higher, which is worse: never not-worse.
    expect(decideVerdict(paired(ratios), { alpha: 1e-6, better: 'lower' }).verdict).not.toMatch(
      /not-worse|no-change/,
    );
  });

  it("keeps 'no-change' for an interval inside ±δ", () => {
    const ratios = [1.001, 0.999, 1.002, 0.998, 1.0, 1.001, 0.999, 1.002, 0.998, 1.001];
    expect(decideVerdict(paired(ratios)).verdict).toBe('no-change');
  });

  it('does not pass when the look has spent less α than the interval would need (passLevel)', () => {
    const ratios = [1.01, 1.04, 1.02, 1.035, 1.015, 1.03];
    const stats = paired(ratios, 1 - 2 * (1 / 64 + 1e-4));
    expect(decideVerdict(stats, { alpha: 1e-6, passLevel: 1 - 2 / 64 }).verdict).toBe('not-worse');
    const tighter = decideVerdict(stats, { alpha: 1e-6, passLevel: 0.99 });
    expect(tighter.verdict).toBe('inconclusive');
    expect(tighter.reasons.map((r) => r.code)).toContain('ci-level-not-reached');
  });

  it('combines: all passed with some only not worse is not-worse, not no-change; a regression outranks', () => {
    const v = (...vs: Array<'no-change' | 'not-worse' | 'regression' | 'inconclusive'>) =>
      overallVerdict(vs.map((verdict, i) => ({ id: String(i), verdict }))).verdict;
    expect(v('no-change', 'no-change')).toBe('no-change');
    expect(v('no-change', 'not-worse')).toBe('not-worse');
    expect(v('not-worse', 'inconclusive')).toBe('inconclusive');
    expect(v('not-worse', 'regression')).toBe('regression');
  });
});

describe('the pass α of an adaptive design', () => {
  it('spends at most α in total, front-loaded, and only sizes the exact interval has', () => {
    const { nominal, spent } = passLevels(0.05, [6, 10, 15, 20, 30], 'signed-rank');
    expect(spent.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(0.05 + 1e-12);
    expect(spent[0]).toBe(1 / 64); // the signed-rank floor at 6 rounds, below the nominal 0.0255
    expect(nominal[0]).toBeCloseTo((0.05 * 0.85 * 6) / PASS_HORIZON_ROUNDS, 12);
    expect(spent[0]! + spent[1]!).toBeGreaterThan(0.04); // most of it by 10 rounds
    spent.forEach((s, k) => expect(s).toBeLessThanOrEqual(nominal[k]! + 1e-12));
    // Unpaired plans spend their nominal levels, which add up to α.
    const mw = passLevels(0.05, [4, 8], 'mann-whitney');
    expect(mw.spent).toEqual(mw.nominal);
    expect(mw.spent[0]! + mw.spent[1]!).toBeCloseTo(0.05, 12);
  });

  it('is recomputed from the declared inputs when read back', () => {
    const plan = designSequential({ schedule: [6, 10, 15, 20, 30], passAlpha: 0.08 });
    const back = sequentialDesignFromJson(JSON.parse(JSON.stringify({ ...plan, passAlpha: [0.5, 0.5] })));
    expect(back.passAlpha).toEqual(plan.passAlpha); // recomputed: a hand-edited level is ignored
    // A plan written before the pass α was its own setting passed at the plan's α.
    const { passAlpha: _, passAlphaTotal: __, ...older } = plan;
    const strict = designSequential({ schedule: [6, 10, 15, 20, 30], passAlpha: 0.05 });
    expect(sequentialDesignFromJson(JSON.parse(JSON.stringify(older))).passAlpha).toEqual(strict.passAlpha);
    expect(() => sequentialDesignFromJson({ ...older, passAlphaTotal: 'x' })).toThrow(
      /adaptive.plan.passAlphaTotal/,
    );
  });

  it('passes an unchanged patch early and a −5% one never (seeded, round-shared 3% noise)', () => {
    const plan = designSequential({ schedule: [6, 10, 15, 20, 30] });
    const run = (seed: number, effect: number) => {
      const z = gaussian(seededRandom(seed));
      const sigma = Math.log(1.03) / Math.SQRT2;
      const samples: Sample[] = [];
      for (let round = 1; round <= 30; round++) {
        const shared = sigma * z();
        for (const arm of ['base', 'head']) {
          const tps = 10_000 * (arm === 'head' ? effect : 1) * Math.exp(shared + sigma * z());
          samples.push(sample({ round, workload: 'w', clients: 1, arm, metrics: { tps } }));
        }
      }
      return adaptiveLook(document(['base', 'head'], { w: [1] }, 30, samples), plan, { look: 5 });
    };
    const unchanged = Array.from({ length: 40 }, (_, i) => run(100 + i, 1));
    const early = unchanged.filter((o) => o.rounds <= 10 && o.comparison.verdict !== 'inconclusive');
    expect(early.length).toBeGreaterThanOrEqual(14); // ~half decided by 10 rounds (the bench: median 10)
    for (const o of unchanged) expect(o.comparison.verdict).not.toBe('regression');
    const worse = Array.from({ length: 40 }, (_, i) => run(500 + i, 0.95));
    for (const o of worse) expect(o.comparison.verdict).not.toMatch(/no-change|not-worse/);
  });
});

describe('the decision over not-worse cells', () => {
  it('passes and says "not worse", never "no change", when a cell is only not worse', () => {
    const samples: Sample[] = [];
    const ratios = [1.01, 1.04, 1.02, 1.035, 1.015, 1.03, 1.025, 1.01, 1.04, 1.02];
    ratios.forEach((r, i) => {
      samples.push(sample({ round: i + 1, workload: 'w', clients: 1, arm: 'base', metrics: { tps: 1000 } }));
      samples.push(
        sample({ round: i + 1, workload: 'w', clients: 1, arm: 'head', metrics: { tps: 1000 * r } }),
      );
    });
    const comparison = compareRun(document(['base', 'head'], { w: [1] }, 10, samples), { alpha: 1e-6 });
    const d = decide(comparison);
    expect(d.outcome).toBe('passed');
    expect(d.verdict).toBe('not-worse');
    expect(d.headline.lead).toBe('Not worse in 1 cell');
    expect(d.status.description).toMatch(/^Passed: not worse in 1 cell/);
  });
});
