import { describe, expect, it } from 'vitest';
import { designSequential } from '../../../src/core/compare/analysis/adaptive.js';
import type { RunResult } from '../../../src/core/results/result-types.js';
import { AdaptiveControl } from '../../../src/run/adaptive-control.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';

/** The reasons to stop before rounds 1..6 (no look is due before round 7), each round taking 60 s. */
function stopsBeforeFirstLook(untilFirstLook: boolean): Array<string | null> {
  let nowMs = 0;
  const control = new AdaptiveControl(
    designSequential({}),
    { thresholdPct: 2 },
    { timeBudgetS: 100, estimatedRoundS: 60, ...(untilFirstLook ? { untilFirstLook } : {}) },
    () => nowMs,
  );
  const said: Array<string | null> = [];
  for (let round = 1; round <= 6; round++) {
    said.push(control.beforeRound({} as RunResult, round, () => {}));
    nowMs += 60_000;
  }
  return said;
}

describe('the adaptive control’s time budget', () => {
  it('stops before a round that cannot fit', () => {
    expect(stopsBeforeFirstLook(false)[1]).toBe(
      'the time budget (100 s) cannot fit round 2 (about 60 s each, 60 s used)',
    );
  });

  it('by default (untilFirstLook) never stops a run before its first look', () => {
    expect(stopsBeforeFirstLook(true)).toEqual([null, null, null, null, null, null]);
  });
});

describe('why the adaptive control stopped', () => {
  it('a stop by the answer (every cell decided at a look) is not a budget stop', () => {
    // A -50 % head in 1 % noise: decided at the second look (10 rounds).
    const samples = syntheticRun({
      seed: 3,
      rounds: 10,
      workloads: { w: [1] },
      effect: (arm) => (arm === 'head' ? 0.5 : 1),
      noise: 0.01,
    });
    const control = new AdaptiveControl(designSequential({}), { thresholdPct: 2 }, { estimatedRoundS: 60 });
    expect(control.beforeRound(samples, 7, () => {})).toBeNull();
    expect(control.beforeRound(samples, 11, () => {})).toMatch(/^every cell decided at look 2/);
    expect(control.stoppedByAnswer).toBe(true);
  });

  it('a stop by the time budget is one', () => {
    let nowMs = 0;
    const control = new AdaptiveControl(
      designSequential({}),
      { thresholdPct: 2 },
      { timeBudgetS: 100, estimatedRoundS: 60 },
      () => nowMs,
    );
    expect(control.beforeRound({} as RunResult, 1, () => {})).toBeNull();
    nowMs += 60_000;
    expect(control.beforeRound({} as RunResult, 2, () => {})).toMatch(/time budget/);
    expect(control.stoppedByAnswer).toBe(false);
  });
});
