/**
 * Issue #38: a workload whose counts decided a regression for every head runs no timed round, since a
 * regression of the counts fails the gate whatever the throughput does; one that did not (no change, an
 * improvement, bistable counts, a head that did not regress) keeps its rounds.
 */
import { describe, expect, it } from 'vitest';
import { regressedByCounts } from '../../../src/core/compare/evidence/counted-regression.js';
import type { InstructionsRecord } from '../../../src/core/results/instructions.js';
import { instructionRecord } from '../../../testkit/instruction-record.js';

function both(a: InstructionsRecord, b: InstructionsRecord): InstructionsRecord {
  return { ...a, settings: { ...a.settings, ...b.settings }, samples: [...a.samples, ...b.samples] };
}

describe('workloads whose counts decided a regression', () => {
  it('names the workload whose every head regressed beyond the threshold, not the unchanged one', () => {
    const record = both(
      instructionRecord({ workload: 'spin', seed: 1, effect: 0.46, cv: 0.001 }),
      instructionRecord({ workload: 'comment', seed: 2, effect: 0, cv: 0.001 }),
    );
    expect(regressedByCounts(record, 'base', ['head'], ['spin', 'comment'])).toEqual(['spin']);
  });

  it('keeps the rounds of an improvement, of no counts, and of a head with no counts of its own', () => {
    const faster = instructionRecord({ workload: 'w', seed: 3, effect: -0.3, cv: 0.001 });
    expect(regressedByCounts(faster, 'base', ['head'], ['w'])).toEqual([]);
    expect(regressedByCounts(undefined, 'base', ['head'], ['w'])).toEqual([]);
    const slower = instructionRecord({ workload: 'w', seed: 4, effect: 0.3, cv: 0.001 });
    expect(regressedByCounts(slower, 'base', ['head', 'other'], ['w'])).toEqual([]);
  });

  it('keeps the rounds when the counts are bistable and the change is within what the split could draw', () => {
    const record = instructionRecord({ workload: 'w', seed: 5, effect: 0, cv: 0.0001 });
    // Head's repetitions split 3% apart, both groups above base: a change the draw explains.
    const head = [1.012, 1.013, 1.043];
    let i = 0;
    const baseTx = record.samples.find((s) => s.arm === 'base')!.perTx;
    record.samples = record.samples.map((s) => (s.arm === 'head' ? { ...s, perTx: baseTx * head[i++]! } : s));
    expect(regressedByCounts(record, 'base', ['head'], ['w'])).toEqual([]);
  });
});
