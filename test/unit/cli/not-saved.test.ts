/**
 * A run the store does not keep says so, and why (#39 item 7). The store keeps every answer: a run with
 * timed samples, and a run decided without timed rounds (every head on base's compiled code and settings,
 * `--metric instructions`, changed code not executed), which is saved with its decision and cost
 * (test/unit/untimed-runs-stored.test.ts). What it does not keep is a run that measured none of the rounds
 * it planned; `pgperf run`, `demo` and `nightly` then print `not saved to the store: <why>` where a saved
 * run prints `saved to the store ... as <id>` (execute-run.ts), as they do when the store refuses it.
 */
import { describe, expect, it } from 'vitest';
import { notSavedReason } from '../../../src/adapters/cli/execute-run.js';
import type { RunResult } from '../../../src/core/results/result-types.js';
import { document, syntheticRun } from '../../../testkit/synthetic-run.js';

/** A run of two arms that ran no timed round, as run-loop.ts leaves it (plan.rounds 0, no sample). */
function untimed(): RunResult {
  const result = document(['base', 'head'], { 'select-only': [1] }, 5, []);
  result.plan.rounds = 0;
  return result;
}

const KEEPS = 'the store keeps runs that measured or decided something, and results.json keeps this one';

describe('not saved to the store: why', () => {
  it('a run stopped before its first sample', () => {
    const result = { ...document(['base', 'head'], { w: [1] }, 5, []), status: 'interrupted' as const };
    expect(notSavedReason(result)).toBe(`nothing was measured (the run was interrupted); ${KEEPS}`);
    expect(notSavedReason({ ...result, status: 'failed' })).toBe(
      `nothing was measured (the run failed); ${KEEPS}`,
    );
  });

  it('a run the store should have kept and did not take', () => {
    const kept = 'the store did not take it; results.json keeps this one';
    expect(notSavedReason(syntheticRun({ seed: 1, rounds: 3 }))).toBe(kept);
    // Decided without timed rounds (same compiled code, the counts decide): kept like every answer.
    expect(notSavedReason(untimed())).toBe(kept);
  });
});
