import { describe, expect, it } from 'vitest';
import { checkPlan, measuredNoiseCvPct, minRunsPerArm, recommendRounds } from '../../../src/compare/power.js';
import { syntheticRun } from './synthetic-run.js';

describe('minRunsPerArm', () => {
  it('follows the exact test floor (statistics.md §2.5)', () => {
    expect(minRunsPerArm(1, 0.05)).toBe(4); // 3 + 3 runs: min p 0.1
    expect(minRunsPerArm(8, 0.05)).toBe(6); // 5 + 5: 8 × 0.0079 > 0.05
    expect(minRunsPerArm(64, 0.05)).toBe(7); // 64 × 0.000583 < 0.05
  });
});

describe('checkPlan', () => {
  it('warns that 5 rounds over 8 cells can never reach significance after Holm', () => {
    const plan = checkPlan({ rounds: 5, cells: 8, test: 'mann-whitney' });
    expect(plan.canReachAlpha).toBe(false);
    expect(plan.minAdjustedP).toBeCloseTo(8 * 0.00793650793651, 10);
    expect(plan.minRounds).toBe(6);
    expect(plan.warnings[0]).toMatch(/5 rounds per arm over 8 cells can never reach significance after Holm/);
    expect(checkPlan({ rounds: 6, cells: 8, test: 'mann-whitney' }).canReachAlpha).toBe(true);
    // The paired signed-rank test's floor is 2/2ⁿ: 9 rounds for 8 cells.
    expect(checkPlan({ rounds: 8, cells: 8 }).canReachAlpha).toBe(false);
    expect(checkPlan({ rounds: 9, cells: 8 })).toMatchObject({ canReachAlpha: true, minRounds: 9 });
  });

  it('recommends rounds from measured or assumed noise', () => {
    const assumed = checkPlan({ rounds: 6, cells: 8 });
    expect(assumed.noiseAssumed).toBe(true);
    expect(assumed.noiseCvPct).toBe(2);
    expect(assumed.recommendedRounds).toBeGreaterThan(6);
    expect(assumed.warnings.join('\n')).toMatch(
      /2.0% run-to-run noise \(assumed\).*needs about \d+ rounds; 6 planned/,
    );
    const quiet = checkPlan({ rounds: 12, cells: 8, noiseCvPct: 1 });
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
    // The paired test's floor is higher: 9 rounds for 8 cells.
    expect(recommendRounds({ ...base, test: 'signed-rank', noiseCvPct: 0 })).toBe(9);
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
