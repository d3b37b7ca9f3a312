/**
 * A run the store does not keep says so, and why (#39 item 7): the store keeps runs with timed samples,
 * and a run without timed rounds (every head on base's compiled code and settings, or `--metric
 * instructions`, which the counts decide) has none. `pgperf run`, `demo` and `nightly` print
 * `not saved to the store: <why>` where a saved run prints `saved to the store ... as <id>`
 * (execute-run.ts).
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

const KEEPS = 'the store keeps runs with timed samples, and results.json keeps this one';

describe('not saved to the store: why', () => {
  it('--metric instructions: the counts decide, no timed rounds ran', () => {
    const result = {
      ...untimed(),
      analysis: { alpha: 0.05, thresholdPct: 2, metric: 'instructions' as const },
    };
    expect(notSavedReason(result)).toBe(
      `no timed rounds ran (the instruction counts decide: --metric instructions); ${KEEPS}`,
    );
  });

  it('every head on the same compiled code as base', () => {
    const result: RunResult = {
      ...untimed(),
      compiledCode: [{ head: 'head', identical: true, files: 120, differingFiles: [], differingCount: 0 }],
    };
    expect(notSavedReason(result)).toBe(
      `no timed rounds ran (every head runs the same compiled code as base with the same settings); ${KEEPS}`,
    );
  });

  it('a run stopped before its first sample', () => {
    const result = { ...document(['base', 'head'], { w: [1] }, 5, []), status: 'interrupted' as const };
    expect(notSavedReason(result)).toBe(`nothing was measured (the run was interrupted); ${KEEPS}`);
  });

  it('a run with samples the store did not take', () => {
    expect(notSavedReason(syntheticRun({ seed: 1, rounds: 3 }))).toBe(
      'the store did not take it; results.json keeps this one',
    );
  });
});
