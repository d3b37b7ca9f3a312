/**
 * Confirm before you accuse (issue #21 item 3): a regressed cell's confirmation block is judged on its own
 * rounds by a one-sided test at α; a regression it does not confirm keeps the decision pending (exit 0).
 * Deterministic: hand-made rounds.
 */
import { buildTables } from '../../../src/core/report/table-model.js';
import { renderComparisonText } from '../../../src/core/report/terminal/comparison-text.js';
import { describe, expect, it } from 'vitest';
import { compareRun } from '../../../src/core/compare/analysis/compare-run.js';
import {
  confirmationTargets,
  judgeConfirmation,
  withConfirmation,
} from '../../../src/core/compare/analysis/confirmation.js';
import { decide, headlineText } from '../../../src/core/compare/decision/decision.js';
import type { RunResult, Sample } from '../../../src/core/results/result-types.js';
import { parseResults } from '../../../src/store/read-results.js';
import { document, sample } from '../../../testkit/synthetic-run.js';

const byRound = (values: number[]) => new Map(values.map((v, i) => [i + 1, v]));

describe('judgeConfirmation', () => {
  it('confirms when the one-sided bound shows head worse than base', () => {
    const base = byRound([1000, 1010, 990, 1005, 995, 1000]);
    const head = byRound([950, 955, 945, 952, 948, 951]);
    const c = judgeConfirmation(base, head, { alpha: 0.05, better: 'higher' });
    expect(c).toMatchObject({ confirmed: true, pairs: 6 });
    expect(c.interval!.upperPct).toBeLessThan(0);
    expect(c.message).toMatch(/^confirmed: 6 confirmation round\(s\).*one-sided 95% bound .* below 0/);
    // Lower-is-better (latency): the same numbers say head is better, so nothing is confirmed.
    expect(judgeConfirmation(base, head, { alpha: 0.05, better: 'lower' }).confirmed).toBe(false);
  });

  it('does not confirm when one round disagrees at 6 rounds (the floor of the one-sided test)', () => {
    const base = byRound([1000, 1000, 1000, 1000, 1000, 1000]);
    const head = byRound([950, 960, 955, 1050, 945, 958]);
    const c = judgeConfirmation(base, head, { alpha: 0.05, better: 'higher' });
    expect(c.confirmed).toBe(false);
    expect(c.message).toMatch(/^unconfirmed: .*does not show head worse than base/);
  });

  it('says why with too few usable rounds', () => {
    const short = judgeConfirmation(byRound([1000, 1000, 1000]), byRound([900, 900, 900]), {
      alpha: 0.05,
      better: 'higher',
    });
    expect(short.confirmed).toBe(false);
    expect(short.message).toMatch(/too few rounds for a one-sided 95% bound/);
    expect(judgeConfirmation(new Map(), new Map(), { alpha: 0.05, better: 'higher' }).message).toMatch(
      /no round with a usable run in both arms/,
    );
  });
});

/** 10 main rounds where head is 10% slower in w@1 and unchanged in w@2, and a block of `blockHead` ratios. */
function regressedRun(blockHead: number[] | null): RunResult {
  const samples: Sample[] = [];
  for (let round = 1; round <= 10; round++) {
    const wobble = 1 + 0.002 * Math.sin(round);
    for (const clients of [1, 2]) {
      samples.push(sample({ round, workload: 'w', clients, arm: 'base', metrics: { tps: 1000 * wobble } }));
      const head = clients === 1 ? 0.9 : 1 + 0.001 * Math.cos(round);
      samples.push(
        sample({ round, workload: 'w', clients, arm: 'head', metrics: { tps: 1000 * head * wobble } }),
      );
    }
  }
  const doc = document(['base', 'head'], { w: [1, 2] }, 10, samples);
  if (blockHead) {
    const block = blockHead.flatMap((r, i) => [
      sample({ round: i + 1, workload: 'w', clients: 1, arm: 'head', metrics: { tps: 1000 * r } }),
      sample({ round: i + 1, workload: 'w', clients: 1, arm: 'base', metrics: { tps: 1000 } }),
    ]);
    doc.confirmation = {
      rounds: blockHead.length,
      seed: 1,
      cells: [{ head: 'head', workload: 'w', clients: 1, metric: 'tps' }],
      samples: block,
    };
  }
  return doc;
}

describe('the decision with a confirmation block', () => {
  it('names the regressed stable cells as the block to measure', () => {
    expect(confirmationTargets(compareRun(regressedRun(null)))).toEqual([
      { head: 'head', workload: 'w', clients: 1, metric: 'tps' },
    ]);
  });

  it('fails a confirmed regression as before, with both results recorded', () => {
    const comparison = compareRun(regressedRun([0.9, 0.91, 0.89, 0.9, 0.92, 0.9]));
    const cell = comparison.comparisons[0]!.cells.find((c) => c.clients === 1)!;
    expect(cell.verdict).toBe('regression');
    expect(cell.confirmation?.confirmed).toBe(true);
    const d = decide(comparison);
    expect(d).toMatchObject({ outcome: 'failed', exitCode: 1 });
    expect(d.cells[0]).toMatchObject({ id: 'w@1', failsGate: true, unconfirmed: false });
    // Every table says the regression was confirmed, beside it (terminal, comment and summary share the model).
    const notes = buildTables(comparison)[0]!.workloads[0]!.tables[0]!.notes;
    expect(
      notes.some((n) => n.clients.includes(1) && /^confirmed: 6 confirmation round/.test(n.message)),
    ).toBe(true);
    expect(renderComparisonText(comparison, d)).toMatch(/clients 1: confirmed: 6 confirmation round/);
  });

  it('holds an unconfirmed regression as pending (exit 0): not a pass, not a fail', () => {
    const comparison = compareRun(regressedRun([1.0, 1.01, 0.99, 1.0, 1.02, 0.98]));
    const d = decide(comparison);
    expect(d.verdict).toBe('regression'); // the main verdict stays what the rounds said
    expect(d).toMatchObject({ outcome: 'pending', exitCode: 0, status: { state: 'pending' } });
    expect(d.counts.unconfirmed).toBe(1);
    expect(d.cells[0]).toMatchObject({ id: 'w@1', failsGate: false, unconfirmed: true });
    expect(headlineText(d)).toMatch(
      /^Unconfirmed regression: w at 1 client, TPS -10\.00%.*unconfirmed: 6 confirmation round/,
    );
    expect(d.status.description).toMatch(/^Pending: unconfirmed regression w@1 TPS -10\.0%/);
    expect(d.failure).toBeUndefined();
    // fail-on never: it would not gate anyway, so it does not hold the decision either.
    expect(decide(comparison, { failOn: 'never', workloads: {} }).outcome).toBe('passed');
  });

  it('fails an unconfirmed regression under fail-on inconclusive, named as unconfirmed', () => {
    const comparison = compareRun(regressedRun([1.0, 1.01, 0.99, 1.0, 1.02, 0.98]));
    const d = decide(comparison, { failOn: 'inconclusive', workloads: {} });
    expect(d).toMatchObject({ outcome: 'failed', exitCode: 1, status: { state: 'failure' } });
    expect(d.cells[0]).toMatchObject({ id: 'w@1', failsGate: true, unconfirmed: true });
    expect(d.counts.unconfirmed).toBe(0); // nothing is held pending: it failed
    expect(headlineText(d)).toMatch(
      /^1 unconfirmed regression \(fail-on inconclusive\): w at 1 client, TPS -10\.00%/,
    );
    expect(d.status.description).toMatch(/^Failed: unconfirmed regression w@1 TPS -10\.0%/);
  });

  it('round-trips through results.json: compare on the saved document decides the same', () => {
    const doc = regressedRun([1.0, 1.01, 0.99, 1.0, 1.02, 0.98]);
    const saved = parseResults(JSON.stringify(doc), 'results.json');
    expect(decide(compareRun(saved))).toEqual(decide(compareRun(doc)));
    // A document without a block (older ones) is judged as before.
    expect(
      withConfirmation(regressedRun(null), compareRun(regressedRun(null))).comparisons[0]!.cells[0]!
        .confirmation,
    ).toBeUndefined();
  });
});
