import { describe, expect, it } from 'vitest';
import { designSequential } from '../../../src/core/compare/analysis/adaptive.js';
import {
  checkDesign,
  estimateNoise,
  measuredNoiseCvPct,
  minRunsPerArm,
  pairedMinRounds,
  designPower,
  recommendRounds,
} from '../../../src/core/compare/power.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';

describe('minRunsPerArm', () => {
  it('follows the exact test floor (statistics.md §2.5)', () => {
    expect(minRunsPerArm(1, 0.05)).toBe(4); // 3 + 3 runs: min p 0.1
    expect(minRunsPerArm(8, 0.05)).toBe(6); // 5 + 5: 8 × 0.0079 > 0.05
    expect(minRunsPerArm(64, 0.05)).toBe(7); // 64 × 0.000583 < 0.05
  });
});

describe('checkDesign', () => {
  it('warns that 5 rounds over 8 cells can never reach significance after Holm', () => {
    const plan = checkDesign({ rounds: 5, cells: 8, test: 'mann-whitney' });
    expect(plan.canReachAlpha).toBe(false);
    expect(plan.minAdjustedP).toBeCloseTo(8 * 0.00793650793651, 10);
    expect(plan.minRounds).toBe(6);
    expect(plan.warnings[0]).toMatch(/5 rounds per arm over 8 cells can never reach significance after Holm/);
    expect(checkDesign({ rounds: 6, cells: 8, test: 'mann-whitney' }).canReachAlpha).toBe(true);
    // The paired design falls back to the rank-sum test below the signed-rank floor (9 rounds for 8 cells),
    // so its reach is the rank-sum test's.
    expect(checkDesign({ rounds: 5, cells: 8 }).canReachAlpha).toBe(false);
    expect(checkDesign({ rounds: 6, cells: 8 })).toMatchObject({ canReachAlpha: true, minRounds: 6 });
    expect(pairedMinRounds(8, 0.05)).toBe(9);
    expect(pairedMinRounds(1, 0.05)).toBe(6);
  });

  it('recommends rounds from measured or assumed noise', () => {
    const assumed = checkDesign({ rounds: 6, cells: 8 });
    expect(assumed.noiseAssumed).toBe(true);
    expect(assumed.noiseCvPct).toBe(2);
    expect(assumed.recommendedRounds).toBeGreaterThan(6);
    expect(assumed.warnings.join('\n')).toMatch(
      /2.0% run-to-run noise \(assumed\).*needs about \d+ rounds; 6 planned/,
    );
    const quiet = checkDesign({ rounds: 12, cells: 8, noiseCvPct: 1 });
    expect(quiet.noiseAssumed).toBe(false);
    expect(quiet.warnings).toEqual([]);
  });
});

describe('recommendRounds', () => {
  const base = { thresholdPct: 2, cells: 8, alpha: 0.05, power: 0.8, test: 'mann-whitney' as const };
  it('matches the simulated power table: CV 1%, δ 2%, 8 cells needs 9–10 rounds', () => {
    // statistics.md §2.4: power at α/8 is 0.69 with 8 rounds and 0.87 with 10.
    expect(recommendRounds({ ...base, noiseCvPct: 1 })).toBe(9);
  });

  it('grows with noise, never drops below the exact floor', () => {
    const rounds = [0.5, 1, 2, 4].map((noiseCvPct) => recommendRounds({ ...base, noiseCvPct }));
    expect(rounds).toEqual([...rounds].sort((a, b) => a - b));
    expect(rounds[0]).toBe(6);
    expect(recommendRounds({ ...base, noiseCvPct: 0 })).toBe(6);
    expect(rounds[3]! / rounds[2]!).toBeGreaterThan(3.5); // ~ quadratic in noise
    expect(recommendRounds({ ...base, test: 'signed-rank', noiseCvPct: 0 })).toBe(6);
  });
});

describe('measuredNoiseCvPct', () => {
  it('recovers the noise of a run', () => {
    const cv = measuredNoiseCvPct(syntheticRun({ seed: 3, rounds: 30, noise: 0.02 }), 'tps');
    expect(cv).toBeGreaterThan(1.6);
    expect(cv).toBeLessThan(2.4);
  });

  it('is null without enough runs', () => {
    expect(measuredNoiseCvPct(syntheticRun({ seed: 3, rounds: 2 }), 'tps')).toBeNull();
  });
});

describe('designPower and estimateNoise', () => {
  const plan = designSequential({ schedule: [6, 10, 15, 20, 30] });
  const cell = { workload: 'w', clients: 1 };

  it('refuses a plan that can never reach significance, with the user’s alpha and hypotheses', () => {
    const tight = designSequential({ schedule: [6, 7], alpha: 0.05 });
    const refused = designPower({ plan: tight, hypotheses: 30, cells: [{ cell, noise: null }] });
    expect(refused.canReachAlpha).toBe(false);
    expect(refused.refusal).toMatch(
      /at most 7 rounds the signed-rank design's smallest p \(5\.8e-4\).*Holm over 30 comparisons/,
    );
    expect(refused.refusal).toMatch(/at least \d+ rounds/);
    expect(refused.cells[0]!.resolvablePct).toBe(Number.POSITIVE_INFINITY);
    expect(designPower({ plan: tight, hypotheses: 7, cells: [{ cell, noise: null }] }).canReachAlpha).toBe(
      true,
    );
    // The user's α decides, not an assumed 0.05: the same looks can reach α 0.1.
    const loose = designSequential({ schedule: [6, 7], alpha: 0.1 });
    expect(designPower({ plan: loose, hypotheses: 30, cells: [{ cell, noise: null }] }).canReachAlpha).toBe(
      true,
    );
  });

  it('gives the smallest resolvable change per cell, growing with noise, shrinking with the budget', () => {
    const at = (pairedCvPct: number, p = plan) =>
      designPower({
        plan: p,
        hypotheses: 7,
        cells: [{ cell, noise: { cell, rounds: 10, pairedCvPct, runCvPct: null } }],
      }).cells[0]!;
    expect(at(3).noiseSource).toBe('measured-paired');
    expect(at(3).resolvablePct).toBeLessThan(at(6).resolvablePct);
    expect(at(6).resolvablePct / at(3).resolvablePct).toBeCloseTo(2, 0);
    const longer = designSequential({ schedule: [6, 10, 15, 20, 30, 60] });
    expect(at(3, longer).resolvablePct).toBeLessThan(at(3).resolvablePct);
    expect(at(1).thresholdResolvable).toBe(true);
    expect(at(1).roundsForThreshold).toBeLessThanOrEqual(30);
    expect(at(6).roundsForThreshold).toBeGreaterThan(30); // the budget a 2% change at 6% noise needs
    const noisy = designPower({
      plan,
      hypotheses: 7,
      cells: [{ cell, noise: { cell, rounds: 10, pairedCvPct: 10, runCvPct: null } }],
    });
    expect(noisy.warnings[0]).toMatch(
      /w@1: at 10\.0% per-round noise \(measured-paired\) 30 rounds resolve changes of .*not the 2% threshold \(about \d+ rounds would\)/,
    );
  });

  it('estimates a cell’s paired and run noise robustly from the runs so far', () => {
    const r = syntheticRun({ seed: 5, rounds: 20, noise: 0.04, workloads: { w: [1] } });
    const noise = estimateNoise(r, cell);
    expect(noise.rounds).toBe(20);
    // Independent runs at 4%: ln(head/base) has SD 4·√2 ≈ 5.7%.
    expect(noise.pairedCvPct!).toBeGreaterThan(3);
    expect(noise.pairedCvPct!).toBeLessThan(9);
    expect(noise.runCvPct!).toBeGreaterThan(2.5);
    expect(noise.runCvPct!).toBeLessThan(6);
    const few = { ...r, samples: r.samples.filter((s) => s.round <= 2) };
    expect(estimateNoise(few, cell)).toMatchObject({ rounds: 2, pairedCvPct: null, runCvPct: null });
  });
});
