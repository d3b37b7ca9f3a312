/**
 * The instruction counts and plans of a sharded run: each shard takes them for its own workloads, and the
 * consolidated document holds every workload's (it held the first shard's alone).
 */
import { describe, expect, it } from 'vitest';
import { consolidateShards } from '../../../src/flows/consolidate/shard-merge.js';
import {
  DEFAULT_INSTRUCTION_SETTINGS,
  type InstructionsRecord,
} from '../../../src/core/results/instructions.js';
import { emptyPlansRecord, type PlansRecord } from '../../../src/core/results/plans.js';
import { shardDocuments } from './shard-documents.js';

function instructionsOf(workloads: string[], wallS: number): InstructionsRecord {
  return {
    counter: 'cachegrind',
    settings: Object.fromEntries(workloads.map((w) => [w, DEFAULT_INSTRUCTION_SETTINGS])),
    wallS,
    samples: workloads.map((workload) => ({
      workload,
      clients: 1,
      arm: 'base',
      repetition: 1,
      counter: 'cachegrind',
      shortInstructions: 1e6,
      longInstructions: 2e6,
      perTx: 1000,
    })),
    profiles: [],
    failures: [],
    notes: ['counted at 1 client'],
  };
}

function plansOf(workloads: string[], wallS: number): PlansRecord {
  const record = emptyPlansRecord(['base', 'head']);
  return {
    ...record,
    wallS,
    statements: workloads.map((workload) => ({ workload, statement: 'SELECT 1', explained: 'SELECT 1' })),
    plans: workloads.map((workload) => ({ workload, arm: 'base', statement: 'SELECT 1', plan: 'Result' })),
  };
}

describe('a consolidation keeps every shard’s instruction counts and plans', () => {
  it('each workload once, from the first shard that took it; wall times added, notes once', () => {
    const [one, two, three] = shardDocuments(3);
    // Shards 1 and 2 both took select-only (its cells are split between them); shard 2 also took tpcb.
    one!.result = {
      ...one!.result,
      instructions: instructionsOf(['select-only'], 5),
      plans: plansOf(['select-only'], 1),
    };
    two!.result = {
      ...two!.result,
      instructions: instructionsOf(['select-only', 'tpcb'], 7),
      plans: plansOf(['select-only', 'tpcb'], 2),
    };
    const [merged] = consolidateShards([one!, two!, three!]).classes;
    const { instructions, plans } = merged!.result;
    expect(Object.keys(instructions!.settings).sort()).toEqual(['select-only', 'tpcb']);
    expect(instructions!.samples.map((s) => s.workload)).toEqual(['select-only', 'tpcb']);
    expect(instructions!.wallS).toBe(12);
    expect(instructions!.notes).toEqual(['counted at 1 client']);
    expect(plans!.statements.map((s) => s.workload)).toEqual(['select-only', 'tpcb']);
    expect(plans!.plans).toHaveLength(2);
    expect(plans!.wallS).toBe(3);
  });

  it('none when no shard took them', () => {
    const [merged] = consolidateShards(shardDocuments(2)).classes;
    expect(merged!.result.instructions).toBeUndefined();
    expect(merged!.result.plans).toBeUndefined();
  });
});
