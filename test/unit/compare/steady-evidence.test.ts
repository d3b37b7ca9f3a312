/**
 * Steady evidence in the decision: with instructions per transaction unchanged, a cell whose TPS is too
 * noisy to decide passes at 1 client (the default policy), not at 2 (waiting can change throughput without
 * changing work) unless the policy says all; never when TPS leans to a regression or the counts moved; the
 * evidence is named in the decision and the interval it could not rule out in the headline.
 */
import { describe, expect, it } from 'vitest';
import { analyse } from '../../../src/flows/compare/analysis.js';
import { decideRun } from '../../../src/flows/compare/decide-run.js';
import { parseSteadyPass } from '../../../src/core/compare/steady-evidence.js';
import type { RunResult } from '../../../src/core/results/types.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';
import { instructionRecord } from '../../../testkit/instruction-record.js';

/** 5 rounds of select-only at 1 and 2 clients, TPS noise 8% (undecidable at ±2%), head's TPS × `tps`. */
function noisyRun(opts: { tps?: number; instructions?: number; steadyPass?: number | 'all' }): RunResult {
  const result = syntheticRun({
    seed: 12,
    rounds: 5,
    workloads: { 'select-only': [1, 2] },
    noise: 0.08,
    effect: (arm) => (arm === 'head' ? (opts.tps ?? 1) : 1),
  });
  return {
    ...result,
    analysis: {
      alpha: 0.05,
      thresholdPct: 2,
      metric: 'tps',
      ...(opts.steadyPass !== undefined ? { steadyPass: opts.steadyPass } : {}),
    },
    instructions: instructionRecord({ seed: 5, effect: opts.instructions ?? 0, cv: 0.0005 }),
  };
}

const tpsCell = (result: RunResult, id: string) =>
  decideRun(result, analyse(result)).cells.find((c) => c.id === id && c.metric === 'tps')!;

describe('steady evidence', () => {
  it('without instruction counts the noisy cells stay undecided (the problem it solves)', () => {
    const result = { ...noisyRun({}), instructions: undefined };
    const decision = decideRun(result, analyse(result));
    expect(decision.outcome).toBe('pending');
    expect(decision.cells.every((c) => c.verdict === 'inconclusive')).toBe(true);
  });

  it('unchanged counts pass the 1-client cell, named as such; the 2-client cell stays undecided by default', () => {
    const result = noisyRun({});
    const decision = decideRun(result, analyse(result));
    const one = decision.cells.find((c) => c.id === 'select-only@1' && c.metric === 'tps')!;
    const two = decision.cells.find((c) => c.id === 'select-only@2' && c.metric === 'tps')!;
    expect(one).toMatchObject({ verdict: 'no-change', evidence: 'instruction counts + TPS, 5 runs' });
    expect(two.verdict).toBe('inconclusive');
    const comparison = analyse(result);
    const cell = comparison.comparisons[0]!.cells.find((c) => c.id === 'select-only@1')!;
    expect(cell.reasons[0]!.code).toBe('steady-unchanged');
    expect(cell.reasons[0]!.message).toMatch(/CPU work per transaction unchanged .* not ruled out/);
    expect(decision.outcome).toBe('pending'); // the 2-client cell still decides nothing
  });

  it("steady-pass all passes both, and the headline says what it could not rule out; 'off' passes none", () => {
    const all = decideRun(noisyRun({ steadyPass: 'all' }), analyse(noisyRun({ steadyPass: 'all' })));
    expect(all.outcome).toBe('passed');
    expect(all.status.state).toBe('success');
    expect(all.headline.detail).toMatch(
      /^2 by unchanged CPU work per transaction with no regression seen \(a loss of up to \d+\.\d% not ruled out\), 1 by instruction counts$/,
    );
    expect(tpsCell(noisyRun({ steadyPass: 0 }), 'select-only@1').verdict).toBe('inconclusive');
  });

  it('a TPS estimate beyond the threshold on the worse side is not passed, whatever the counts say', () => {
    const cell = tpsCell(noisyRun({ tps: 0.9, steadyPass: 'all' }), 'select-only@1');
    expect(cell.verdict).not.toBe('no-change');
  });

  it('moved counts pass nothing: the instruction cell itself decides (a regression here)', () => {
    const result = noisyRun({ instructions: 0.05, steadyPass: 'all' });
    const decision = decideRun(result, analyse(result));
    expect(tpsCell(result, 'select-only@1').verdict).toBe('inconclusive');
    expect(decision.cells.find((c) => c.metric === 'instructions')).toMatchObject({
      verdict: 'regression',
      failsGate: true,
    });
    expect(decision.outcome).toBe('failed');
  });

  it('the policy is parsed once for the flag and the input: counts, all, off; anything else is refused', () => {
    expect(parseSteadyPass('1')).toEqual({ value: 1 });
    expect(parseSteadyPass('ALL')).toEqual({ value: 'all' });
    expect(parseSteadyPass('off')).toEqual({ value: 0 });
    expect(parseSteadyPass('1e3')).toMatchObject({ problem: expect.stringMatching(/got '1e3'/) });
    expect(parseSteadyPass('20000')).toMatchObject({ problem: expect.stringMatching(/1 to 10000/) });
  });
});
