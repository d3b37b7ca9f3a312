import { describe, expect, it } from 'vitest';
import { DEMO_WORKLOAD } from '../../../src/adapters/cli/commands/demo.js';
import { checkPlan } from '../../../src/core/compare/power.js';

describe('pgperf demo', () => {
  it("plans a threshold its rounds resolve, so the run's power check has nothing to warn twice", () => {
    // The run loop warns (live, and again in the report's warnings) when the plan cannot resolve the threshold.
    const plan = {
      rounds: DEMO_WORKLOAD.rounds,
      cells: DEMO_WORKLOAD.clients.length,
      thresholdPct: DEMO_WORKLOAD.threshold,
    };
    expect(DEMO_WORKLOAD.threshold).toBe(10);
    expect(checkPlan(plan).warnings).toEqual([]);
    expect(checkPlan({ ...plan, test: 'mann-whitney' }).warnings).toEqual([]);
    // What the 2% default would have cost is what the demo's intro says once instead.
    expect(checkPlan({ ...plan, thresholdPct: 2 }).warnings).toEqual([
      expect.stringMatching(
        /detecting a 2% change over 2 cells with 80% power needs about \d+ rounds; 5 planned/,
      ),
    ]);
  });
});
