/**
 * The nightly history's noise floor in the verdict (src/core/compare/analysis/history-threshold.ts), through the real
 * analysis of a results document (analyse): a change inside the floor is not a regression, a pass keeps the
 * configured threshold, and every cell with a floor says where it came from.
 */
import { describe, expect, it } from 'vitest';
import { analyse } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { decideRun } from '../../../src/flows/compare/pipeline/decide-run.js';
import { parseResults } from '../../../src/store/read-results.js';
import type { NoiseFloor, RunResult } from '../../../src/core/results/result-types.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';

const floor = (floorPct: number): NoiseFloor => ({
  workload: 'ro',
  clients: 1,
  metric: 'tps',
  floorPct,
  runs: 30,
  from: '2026-10-01T02:00:00.000Z',
  to: '2026-10-30T02:00:00.000Z',
});

/** 12 paired rounds, 1% noise, head's TPS times `effect`; the floors recorded as the run's analysis. */
function run(effect: number, floors: NoiseFloor[] | undefined): RunResult {
  const result = syntheticRun({
    seed: 3,
    rounds: 12,
    workloads: { ro: [1] },
    effect: (arm) => (arm === 'head' ? effect : 1),
  });
  return {
    ...result,
    analysis: { alpha: 0.05, thresholdPct: 2, metric: 'tps', ...(floors ? { noiseFloors: floors } : {}) },
  };
}

const cellOf = (result: RunResult) => analyse(result).comparisons[0]!.cells[0]!;

describe('a cell judged with its nightly history', () => {
  it('a 3% regression inside a 3.5% floor is not called a regression: inconclusive, saying why', () => {
    expect(cellOf(run(0.97, undefined)).verdict).toBe('regression');
    const cell = cellOf(run(0.97, [floor(3.43)]));
    expect(cell.verdict).toBe('inconclusive');
    expect(cell.reasons[0]).toMatchObject({ code: 'inside-noise-floor' });
    expect(cell.reasons[0]!.message).toContain("inside this runner's noise floor of 3.5%");
    expect(cell.reasons.map((r) => r.code)).not.toContain('significant-beyond-threshold');
    expect(cell.notes).toContainEqual({
      code: 'threshold-from-history',
      message: expect.stringContaining('30 nightly runs on this runner (2026-10-01 to 2026-10-30)'),
    });
    // The gate does not pass it: pending, not green.
    const gated = run(0.97, [floor(3.43)]);
    expect(decideRun(gated, analyse(gated)).outcome).toBe('pending');
  });

  it('a regression beyond the floor stays a regression', () => {
    const cell = cellOf(run(0.85, [floor(6.93)]));
    expect(cell.verdict).toBe('regression');
    expect(cell.thresholdPct).toBe(2);
  });

  it('a pass keeps the configured threshold: a floor never turns a change into a pass', () => {
    const unchanged = cellOf(run(1, [floor(6.93)]));
    expect(unchanged.verdict).toBe('no-change');
    expect(unchanged.reasons[0]!.message).toContain('inside ±2%');
    // A 4% change inside a 7% floor: not a regression, not a pass either.
    expect(cellOf(run(0.96, [floor(6.93)])).verdict).toBe('inconclusive');
  });

  it('a floor below the threshold changes nothing and says so in one wording for every cell', () => {
    const cell = cellOf(run(0.95, [floor(1.2)]));
    expect(cell.verdict).toBe('regression');
    expect(cell.notes).toContainEqual({
      code: 'threshold-from-history',
      message: "this runner's nightly history puts the noise floor below the 2% threshold",
    });
  });

  it('a floor over twice the threshold marks the cell noisy', () => {
    const cell = cellOf(run(1, [floor(9)]));
    expect(cell.notes.find((n) => n.code === 'noisy-history')?.message).toMatch(
      /^noisy on this runner's history: .* over 2x the 2% threshold; a change must reach 9% to be called a regression here, a pass still needs ±2%$/,
    );
  });

  it('a floor over 5x the threshold is capped there (a poisoned or wild history hides no more): a -99.9% head fails', () => {
    const cell = cellOf(run(0.001, [floor(175)]));
    expect(cell.verdict).toBe('regression');
    expect(cell.notes.find((n) => n.code === 'noisy-history')?.message).toMatch(
      /^too noisy on this runner's history to gate finer: .*up to 175% .* over 5x the 2% threshold, so the floor is capped there: a change must reach 10% to be called a regression here, a pass still needs ±2%$/,
    );
    // Inside the cap the change is not called a regression: -8% under a 175% history is pending.
    expect(cellOf(run(0.92, [floor(175)])).verdict).toBe('inconclusive');
    const gated = run(0.001, [floor(175)]);
    expect(decideRun(gated, analyse(gated)).outcome).toBe('failed');
    // Just under the cap the floor still applies: a 4% change inside 9.9% is not called a regression.
    expect(cellOf(run(0.96, [floor(9.9)])).verdict).toBe('inconclusive');
    // A results file with an absurd floor is refused on read, naming the field.
    const absurd = { ...run(1, [floor(3)]) };
    absurd.analysis!.noiseFloors![0]!.floorPct = 1e300;
    expect(() => parseResults(JSON.stringify(absurd), 'results.json')).toThrow(/floorPct/);
  });

  it('floors apply to their own cell and metric only, and are read back from the document', () => {
    const other = { ...floor(6.93), clients: 8 };
    expect(cellOf(run(0.95, [other])).verdict).toBe('regression');
    const p99 = { ...floor(6.93), metric: 'latencyP99Ms' as const };
    expect(cellOf(run(0.95, [p99])).verdict).toBe('regression');
    // The recorded floors survive the results reader (pgperf compare and comment mode read files with it).
    const text = JSON.stringify(run(0.97, [floor(3.43)]));
    const read = parseResults(text, 'results.json');
    expect(read.analysis?.noiseFloors).toEqual([floor(3.43)]);
    expect(cellOf(read).verdict).toBe('inconclusive');
    const bad = { ...read, analysis: { ...read.analysis!, noiseFloors: [{ ...floor(3), floorPct: -1 }] } };
    expect(() => parseResults(JSON.stringify(bad), 'results.json')).toThrow(/noiseFloors/);
  });

  it('says which runs a floor came from: the first and last run ids, the branch and the workload definition', () => {
    const traced: NoiseFloor = {
      ...floor(3.43),
      firstRunId: '20261001T020000Z-0a1b2c3d',
      lastRunId: '20261030T020000Z-4e5f6071',
      branch: 'master',
      definition: '0123456789abcdef',
    };
    expect(cellOf(run(0.97, [traced])).reasons[0]!.message).toBe(
      "the change -2.25% is beyond the 2% threshold but inside this runner's noise floor of 3.5%: 30 nightly runs " +
        'on this runner (2026-10-01 to 2026-10-30; runs 20261001T020000Z-0a1b2c3d to 20261030T020000Z-4e5f6071, ' +
        'of branch master, workload definition 0123456789abcdef) differ from night to night by up to 3.5% without ' +
        'cause (Q3 + 1.5·IQR of their changes)',
    );
    expect(cellOf(run(1, [{ ...traced, branch: null }])).notes[0]!.message).toContain(
      'runs 20261001T020000Z-0a1b2c3d to 20261030T020000Z-4e5f6071, of no branch, workload definition',
    );
    // Recorded, they survive the results reader; range-checked, a bad one is refused naming the field.
    const read = parseResults(JSON.stringify(run(0.97, [traced])), 'results.json');
    expect(read.analysis?.noiseFloors).toEqual([traced]);
    const refused = (bad: Partial<NoiseFloor>) => () =>
      parseResults(JSON.stringify(run(1, [{ ...traced, ...bad }])), 'results.json');
    expect(refused({ definition: 'not-a-hash' })).toThrow(
      /analysis\.noiseFloors\[0\]\.definition.*expected a workload definition hash \(16 hex digits\)/,
    );
    expect(refused({ runs: 0 })).toThrow(/analysis\.noiseFloors\[0\]\.runs/);
  });
});
