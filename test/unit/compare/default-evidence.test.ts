/**
 * The default evidence's rules that need no server: which workloads are counted by default, and that a
 * workload counted by default whose counting failed leaves no count without data to hold the answer
 * pending (its timed rounds decide), while one that asked for its counts keeps them as they are.
 */
import { describe, expect, it } from 'vitest';
import {
  countedByDefault,
  withDefaultCounts,
  withoutFailedDefaults,
} from '../../../src/run/counted/default-evidence.js';
import { parseWorkload } from '../../../src/drivers/load-workload.js';
import { analyse } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { decideRun } from '../../../src/flows/compare/pipeline/decide-run.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';
import { instructionRecord } from '../../../testkit/instruction-record.js';

const workload = (text: string) => parseWorkload(text, 'w.yml');
const selectOnly = workload('name: select-only\ntool: pgbench\nbuiltin: select-only\nclients: [1]\n');
const piped = workload('name: piped\ntool: pgbench\nbuiltin: select-only\npipeline: 10\nclients: [1]\n');
const own = workload('name: own\ntool: pgbench\nbuiltin: select-only\ninstructions: true\nclients: [1]\n');

describe('the default evidence', () => {
  it('counts the pgbench workloads without pipeline that do not count on their own', () => {
    expect(countedByDefault([selectOnly, piped, own]).map((w) => w.name)).toEqual(['select-only']);
    const counted = withDefaultCounts([selectOnly, piped, own]);
    expect(counted.map((w) => w.instructions !== undefined)).toEqual([true, false, true]);
    expect(selectOnly.instructions).toBeUndefined(); // copies: the caller's workloads are left alone
  });

  it('drops the samples of a default count that failed, so the timed rounds decide it', () => {
    const measured = syntheticRun({ seed: 4, rounds: 8, workloads: { 'select-only': [1] } });
    const partial = instructionRecord({ seed: 1, effect: 0, cv: 0.001 });
    partial.samples = partial.samples.filter((s) => s.arm === 'base').slice(0, 1);
    partial.failures = [{ workload: 'select-only', reason: 'too slow to count' }];
    const cellsOf = (record: typeof partial) => {
      const result = { ...measured, instructions: record };
      return decideRun(result, analyse(result)).cells.filter((c) => c.metric === 'instructions');
    };
    // As the phase left it: an instruction cell with no data, undecided.
    expect(cellsOf(partial)).toMatchObject([{ verdict: 'inconclusive' }]);
    const kept = withoutFailedDefaults(partial, countedByDefault([selectOnly]));
    expect(kept.samples).toEqual([]);
    expect(kept.failures).toEqual([{ ...partial.failures[0], offered: true }]);
    expect(cellsOf(kept)).toEqual([]);
    // Counts asked for are kept as they are: their failure is the answer's to show.
    expect(withoutFailedDefaults(partial, countedByDefault([own]))).toBe(partial);
  });

  it("keeps the other heads' counts when one head was too slow to count", () => {
    // base, head and a seq-scan head ('slow') whose counting failed: the phase recorded the failure with the
    // arm and kept none of its samples.
    const measured = syntheticRun({
      seed: 5,
      rounds: 8,
      arms: ['base', 'head', 'slow'],
      workloads: { 'select-only': [1] },
    });
    const record = instructionRecord({ seed: 2, effect: 0.3, cv: 0.001 });
    record.failures = [{ workload: 'select-only', arm: 'slow', reason: 'too slow to count' }];
    const kept = withoutFailedDefaults(record, countedByDefault([selectOnly]));
    expect(kept.samples).toEqual(record.samples);
    expect(kept.failures).toEqual([{ ...record.failures[0], offered: true }]);
    const result = { ...measured, instructions: kept };
    const cells = decideRun(result, analyse(result)).cells.filter((c) => c.metric === 'instructions');
    // The counted head is still decided on its counts; the slow one has no count cell (its timed cells decide).
    expect(cells.map((c) => [c.head, c.verdict])).toEqual([['head', 'regression']]);
    // Asked for, the slow head's missing count is shown as undecided.
    const asked = { ...measured, instructions: record };
    const askedCells = decideRun(asked, analyse(asked)).cells.filter((c) => c.metric === 'instructions');
    expect(askedCells.map((c) => [c.head, c.verdict])).toEqual([
      ['head', 'regression'],
      ['slow', 'inconclusive'],
    ]);
  });
});
