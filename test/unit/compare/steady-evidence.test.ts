/**
 * Steady evidence in the decision: with instructions per transaction unchanged, a cell whose TPS is too
 * noisy to decide passes at 1 client; above 1 client only when its waits were sampled and did not move
 * (waiting can change throughput without changing work), at every client count by default; never when TPS
 * leans to a regression, the counts moved, the waits grew or a plan changed; the evidence is named in the
 * decision and the interval it could not rule out in the headline.
 */
import { describe, expect, it } from 'vitest';
import { analyse } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { decideRun } from '../../../src/flows/compare/pipeline/decide-run.js';
import { parseSteadyPass } from '../../../src/core/compare/evidence/steady-evidence.js';
import type { RunResult } from '../../../src/core/results/result-types.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';
import { instructionRecord } from '../../../testkit/instruction-record.js';
import { seededRandom } from '../../../src/core/stats/seeded-random.js';
import { waitDiagnostics } from '../../../testkit/wait-diagnostics.js';

/**
 * The document with every sample's wait events sampled: 400 backend observations per run, `baseWaitPct` of
 * them in LWLock:BufferContent (±1 point per run), head's share raised by `headExtraPct` at `clients`.
 */
function withWaits(
  result: RunResult,
  opts: { baseWaitPct?: number; headExtraPct?: number; clients?: number } = {},
): RunResult {
  const random = seededRandom(77);
  const observations = 400;
  return {
    ...result,
    samples: result.samples.map((s) => {
      const extra =
        s.arm === 'head' && s.clients === (opts.clients ?? s.clients) ? (opts.headExtraPct ?? 0) : 0;
      const pct = Math.max(0, (opts.baseWaitPct ?? 3) + extra + (random() - 0.5) * 2);
      const waiting = Math.round((observations * pct) / 100);
      return { ...s, diagnostics: waitDiagnostics(observations, waiting) };
    }),
  };
}

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

  it('unchanged counts pass the 1-client cell, named as such; without sampled waits the 2-client cell stays undecided', () => {
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

  it('by default, unchanged counts and unchanged waits pass every client count, and the headline says what it could not rule out', () => {
    const result = withWaits(noisyRun({}));
    const all = decideRun(result, analyse(result));
    expect(all.outcome).toBe('passed');
    expect(all.status.state).toBe('success');
    expect(all.headline.detail).toMatch(
      /^2 by unchanged CPU work per transaction with no regression seen \(a loss of up to \d+\.\d% not ruled out\), 1 by instruction counts$/,
    );
    const cell = analyse(result).comparisons[0]!.cells.find((c) => c.id === 'select-only@2')!;
    expect(cell.reasons[0]!.message).toMatch(
      /waits unchanged \(server waits \d+\.\d% -> \d+\.\d% of backend time/,
    );
    expect(
      tpsCell({ ...result, analysis: { ...result.analysis!, steadyPass: 0 } }, 'select-only@1').verdict,
    ).toBe('inconclusive');
    expect(
      tpsCell({ ...result, analysis: { ...result.analysis!, steadyPass: 1 } }, 'select-only@2').verdict,
    ).toBe('inconclusive');
  });

  it('a head that only waits (server waits +8 points, counts unchanged) is not passed on steady evidence', () => {
    const result = withWaits(noisyRun({}), { headExtraPct: 8, clients: 2 });
    expect(tpsCell(result, 'select-only@2').verdict).toBe('inconclusive');
    expect(tpsCell(result, 'select-only@1').verdict).toBe('no-change');
    expect(decideRun(result, analyse(result)).outcome).not.toBe('passed');
  });

  it('a changed plan passes nothing on steady evidence', () => {
    const plain = withWaits(noisyRun({}));
    const statement = 'SELECT abalance FROM pgbench_accounts WHERE aid = :aid';
    const result: RunResult = {
      ...plain,
      plans: {
        arms: ['base', 'head'],
        wallS: 1,
        statements: [{ workload: 'select-only', statement, explained: statement.replace(':aid', '1') }],
        plans: [
          { workload: 'select-only', arm: 'base', statement, plan: 'Index Scan using pgbench_accounts_pkey' },
          { workload: 'select-only', arm: 'head', statement, plan: 'Seq Scan on pgbench_accounts' },
        ],
        stats: [],
        failures: [],
        notes: [],
      },
    };
    expect(tpsCell(result, 'select-only@1').verdict).toBe('inconclusive');
    expect(tpsCell(result, 'select-only@2').verdict).toBe('inconclusive');
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
