/**
 * A workload whose counts decided a regression runs only its memory rounds (3, at its lowest client count):
 * its throughput cells are undecided on purpose and say so, once, instead of asking for more rounds or
 * warning that 3 rounds can never reach significance; a workload the counts did not decide is judged as ever.
 */
import { describe, expect, it } from 'vitest';
import { analyse } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { decideRun } from '../../../src/flows/compare/pipeline/decide-run.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';
import { instructionRecord } from '../../../testkit/instruction-record.js';
import type { InstructionsRecord } from '../../../src/core/results/instructions.js';

function withCounts(effect: number): ReturnType<typeof syntheticRun> {
  const result = syntheticRun({ seed: 3, rounds: 3, workloads: { 'select-only': [1] }, noise: 0.05 });
  // The lowest client count only, as the pipeline runs memory rounds: the 2-client cell has no run.
  result.plan.cells.push({ workload: 'select-only', clients: 2 });
  const record: InstructionsRecord = instructionRecord({ seed: 4, effect, cv: 0.001 });
  return { ...result, instructions: record };
}

describe('the throughput cells of a workload its counts decided', () => {
  it('say the counts decided, once, with no plan warning; the counts fail the run', () => {
    const result = withCounts(0.46);
    const comparison = analyse(result);
    const tps = comparison.comparisons[0]!.cells;
    expect(tps.map((c) => [c.clients, c.verdict, c.reasons.map((r) => r.code)])).toEqual([
      [1, 'inconclusive', ['counts-decided']],
      [2, 'inconclusive', ['counts-decided']],
    ]);
    expect(comparison.warnings.join('\n')).not.toMatch(/never reach significance|no test possible|rounds/);
    const decision = decideRun(result, comparison);
    expect(decision.outcome).toBe('failed');
    expect(decision.reasons.filter((r) => r.code === 'counts-decided')).toHaveLength(1);
  });

  it('are judged on their rounds when the counts did not decide', () => {
    const comparison = analyse(withCounts(0));
    const reasons = comparison.comparisons[0]!.cells.flatMap((c) => c.reasons.map((r) => r.code));
    expect(reasons).not.toContain('counts-decided');
    expect(reasons).toContain('too-few-runs');
  });
});
