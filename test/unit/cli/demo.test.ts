import { describe, expect, it } from 'vitest';
import { DEMO_ARMS, DEMO_WORKLOAD, demoThreshold } from '../../../src/flows/compare/demo-comparison.js';
import { demoReadingText, demoThresholdText } from '../../../src/core/report/terminal/demo-text.js';
import { checkDesign } from '../../../src/core/compare/power.js';

describe('pgperf demo', () => {
  it("plans a threshold its rounds resolve, so the run's power check has nothing to warn twice", () => {
    // The run loop warns (live, and again in the report's warnings) when the plan cannot resolve the threshold.
    const plan = {
      rounds: DEMO_WORKLOAD.rounds,
      cells: DEMO_WORKLOAD.clients.length,
      thresholdPct: DEMO_WORKLOAD.threshold,
    };
    expect(DEMO_WORKLOAD.threshold).toBe(10);
    expect(checkDesign(plan).warnings).toEqual([]);
    expect(checkDesign({ ...plan, test: 'mann-whitney' }).warnings).toEqual([]);
    // What the 2% default would have cost is what the demo's intro says once instead.
    const needed = checkDesign({ ...plan, thresholdPct: 2 }).recommendedRounds;
    expect(checkDesign({ ...plan, thresholdPct: 2 }).warnings).toEqual([
      expect.stringContaining(
        `detecting a 2% change over 2 cells with 80% power needs about ${needed} rounds; 5 planned`,
      ),
    ]);
    expect(demoThreshold(DEMO_WORKLOAD.rounds)).toMatchObject({ thresholdPct: 10, defaultPct: 2, rounds: 5 });
    expect(demoThresholdText(demoThreshold(DEMO_WORKLOAD.rounds))).toBe(
      `threshold 10% (the default 2% would need about ${needed} rounds at the assumed 2.0% noise; the demo runs 5)`,
    );
  });

  it('says which arm is head and what its verdict means for synchronous_commit', () => {
    const arms =
      "demo: base is arm 'sync-on' (synchronous_commit=on, the default), head is arm 'sync-off' (synchronous_commit=off): ";
    expect(demoReadingText('improvement', DEMO_ARMS)).toBe(
      `${arms}improvement: head is faster: with synchronous_commit=off a commit returns before its WAL is flushed to disk, so it does not wait for the flush`,
    );
    expect(demoReadingText('regression', DEMO_ARMS)).toContain(
      `${arms}regression: head is slower in some cell`,
    );
    expect(demoReadingText('inconclusive', DEMO_ARMS)).toMatch(
      /: inconclusive: no improvement was decided: too few rounds .*pgperf demo --rounds 10\)$/,
    );
  });
});
