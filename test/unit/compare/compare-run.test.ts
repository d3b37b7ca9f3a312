import { describe, expect, it } from 'vitest';
import { compareRun } from '../../../src/core/compare/analysis/compare-run.js';
import type { CellComparison, RunComparison } from '../../../src/core/compare/comparison-types.js';
import { holmAdjust } from '../../../src/core/stats/holm.js';
import { expectNoNaN } from '../stats/vectors.js';
import { document, sample, syntheticRun } from '../../../testkit/synthetic-run.js';

const cell = (c: RunComparison, id: string, head = 0): CellComparison => {
  const found = c.comparisons[head]!.cells.find((x) => x.id === id);
  if (!found) throw new Error(`no cell ${id}`);
  return found;
};

describe('compareRun', () => {
  it('adjusts with Holm across all cells of a comparison and decides overall', () => {
    const result = syntheticRun({
      seed: 1,
      rounds: 10, // the paired test needs 9 rounds to pass Holm over 8 cells (8 × 2/2⁹ < 0.05)
      effect: (arm, _, clients) => (arm === 'head' && clients >= 32 ? 0.95 : 1),
    });
    const c = compareRun(result);
    const arm = c.comparisons[0]!;
    expect(arm.familySize).toBe(8);
    const adjusted = holmAdjust(arm.cells.map((x) => x.p!));
    arm.cells.forEach((x, i) => expect(x.pAdjusted).toBe(adjusted[i]));
    expect(arm.cells.filter((x) => x.verdict === 'regression').map((x) => x.clients)).toEqual([32, 64, 128]);
    expect(c.verdict).toBe('regression');
    expect(arm.decidingCells).toEqual(['tpcb@32', 'tpcb@64', 'tpcb@128']);
    expect(c.decidingArms).toEqual(['head']);
    expectNoNaN(c);
  });

  it('reports mixed when some cells regress and others improve', () => {
    const result = syntheticRun({
      seed: 2,
      rounds: 10,
      effect: (arm, _, clients) => (arm !== 'head' ? 1 : clients === 1 ? 1.06 : clients === 128 ? 0.94 : 1),
    });
    const c = compareRun(result);
    expect(c.verdict).toBe('mixed');
    expect(c.comparisons[0]!.decidingCells).toEqual(['tpcb@1', 'tpcb@128']);
  });

  it('says no-change only when every cell shows no change', () => {
    const c = compareRun(syntheticRun({ seed: 3, rounds: 12, noise: 0.005 }));
    expect(c.comparisons[0]!.cells.every((x) => x.verdict === 'no-change')).toBe(true);
    expect(c.verdict).toBe('no-change');
  });

  it('applies a per-workload threshold from workloads[name].threshold', () => {
    const workloads = { tpcb: [8, 16], select: [8, 16] };
    const base = syntheticRun({
      seed: 4,
      rounds: 10,
      workloads,
      effect: (arm) => (arm === 'head' ? 0.97 : 1),
    });
    const result = document(['base', 'head'], workloads, 10, base.samples, { select: { threshold: 5 } });
    const c = compareRun(result);
    expect(cell(c, 'tpcb@8')).toMatchObject({ thresholdPct: 2, verdict: 'regression' });
    expect(cell(c, 'select@8')).toMatchObject({ thresholdPct: 5, verdict: 'no-change' }); // -3% is inside ±5%
    expect(cell(c, 'select@8').reasons.map((r) => r.code)).toContain('significant-below-threshold');
  });

  it('warns about an invalid threshold override and falls back to the default', () => {
    const r = syntheticRun({ seed: 5, rounds: 6, workloads: { tpcb: [1] } });
    const c = compareRun(
      document(['base', 'head'], { tpcb: [1] }, 6, r.samples, { tpcb: { threshold: '3%' } }),
    );
    expect(cell(c, 'tpcb@1').thresholdPct).toBe(2);
    expect(c.warnings.join('\n')).toMatch(/workload 'tpcb' has threshold "3%"/);
  });

  it('excludes failed runs, counts them, and keeps one value per round after a retry', () => {
    const result = syntheticRun({ seed: 6, rounds: 6, workloads: { tpcb: [4] } });
    result.samples.push(
      sample({
        round: 2,
        workload: 'tpcb',
        clients: 4,
        arm: 'head',
        metrics: {},
        status: 'failed',
        attempt: 1,
      }),
      sample({ round: 7, workload: 'tpcb', clients: 4, arm: 'base', metrics: { tps: 1 }, status: 'failed' }),
    );
    // A retry of round 3 that succeeded: it replaces round 3's earlier value.
    result.samples.push(
      sample({ round: 3, workload: 'tpcb', clients: 4, arm: 'head', metrics: { tps: 12_000 }, attempt: 2 }),
    );
    const x = cell(compareRun(result), 'tpcb@4');
    expect(x.base).toMatchObject({ n: 6, failed: 1 });
    expect(x.head).toMatchObject({ n: 6, failed: 1 });
    expect(x.notes.map((n) => n.code)).toContain('failed-runs-excluded');
    expect(compareRun(result).warnings.join('\n')).toMatch(/2 failed run\(s\) were excluded/);
  });

  it('explains a cell missing in one arm instead of crashing', () => {
    const result = syntheticRun({ seed: 7, rounds: 6, workloads: { tpcb: [1, 2] } });
    result.samples = result.samples.filter((s) => !(s.clients === 2 && s.arm === 'head'));
    const c = compareRun(result);
    const x = cell(c, 'tpcb@2');
    expect(x.verdict).toBe('inconclusive');
    expect(x.reasons[0]).toMatchObject({
      code: 'insufficient-data',
      message: 'no runs of this cell in head (head)',
    });
    expect(c.comparisons[0]!.familySize).toBe(1);
    expect(c.warnings.join('\n')).toMatch(/no test possible for tpcb@2/);
    expectNoNaN(c);
  });

  it('handles documents without samples or with a single arm', () => {
    const empty = document(['base', 'head'], { tpcb: [1] }, 5, []);
    const c = compareRun(empty);
    expect(c.verdict).toBe('inconclusive');
    expect(cell(c, 'tpcb@1').reasons[0]!.code).toBe('insufficient-data');
    const single = compareRun(document(['base'], { tpcb: [1] }, 5, []));
    expect(single.comparisons).toEqual([]);
    expect(single.verdict).toBe('inconclusive');
    expect(single.warnings.join('\n')).toMatch(/needs a baseline and at least one head/);
    const none = compareRun(document([], {}, 0, []));
    expect(none.baseline).toBeNull();
  });

  it('compares every head arm with arms[0]', () => {
    const result = syntheticRun({
      seed: 8,
      rounds: 8,
      arms: ['base', 'fast', 'slow'],
      workloads: { tpcb: [1, 8] },
      effect: (arm) => (arm === 'fast' ? 1.05 : arm === 'slow' ? 0.95 : 1),
    });
    const c = compareRun(result);
    expect(c.comparisons.map((a) => [a.head, a.verdict])).toEqual([
      ['fast', 'improvement'],
      ['slow', 'regression'],
    ]);
    expect(c.verdict).toBe('mixed');
  });

  it('flips the direction for lower-is-better metrics', () => {
    const result = syntheticRun({
      seed: 9,
      rounds: 8,
      metric: 'latencyAvgMs',
      workloads: { tpcb: [1, 8] },
      level: () => 2.5,
      effect: (arm) => (arm === 'head' ? 1.05 : 1),
    });
    const c = compareRun(result, { metric: 'latencyAvgMs' });
    expect(c.better).toBe('lower');
    expect(cell(c, 'tpcb@1').deltaPct).toBeGreaterThan(2);
    expect(c.verdict).toBe('regression');
  });

  it('sees a 2% drop through a 20% drift with the paired test, where the unpaired test is blind', () => {
    // A 2% drop in every round, hidden from the unpaired test by a 20% drift over the session.
    const result = syntheticRun({
      seed: 10,
      rounds: 10,
      noise: 0.001,
      workloads: { tpcb: [16] },
      effect: (arm, _, __, round) => (1 + 0.02 * round) * (arm === 'head' ? 0.98 : 1),
    });
    const paired = cell(compareRun(result), 'tpcb@16');
    expect(paired).toMatchObject({ test: 'signed-rank', pairs: 10, verdict: 'regression' });
    expect(paired.deltaPct!).toBeCloseTo(-2, 1);
    const unpaired = cell(compareRun(result, { test: 'unpaired' }), 'tpcb@16');
    expect(unpaired).toMatchObject({ test: 'mann-whitney', verdict: 'inconclusive' });
    expect(unpaired.p!).toBeGreaterThan(0.05);
  });

  it('summarises peak and collapse per workload and how they moved', () => {
    const shape: Record<number, number> = { 1: 1000, 4: 3500, 16: 9000, 32: 10_000, 64: 9500, 128: 6000 };
    const result = syntheticRun({
      seed: 11,
      rounds: 6,
      workloads: { tpcb: [1, 4, 16, 32, 64, 128] },
      level: (_, clients) => shape[clients]!,
      effect: (arm, _, clients) => (arm === 'head' && clients >= 64 ? 0.7 : 1),
    });
    const [curve] = compareRun(result).comparisons[0]!.curves;
    expect(curve).toMatchObject({ workload: 'tpcb', peakMoved: false, collapseMoved: true });
    expect(curve!.base).toMatchObject({ peakClients: 32, collapseClients: 128 });
    expect(curve!.head).toMatchObject({ peakClients: 32, collapseClients: 64 });
    expect(Math.abs(curve!.peakDeltaPct)).toBeLessThan(2);
  });

  it('warns that 5 rounds over 8 cells can never reach significance', () => {
    const c = compareRun(syntheticRun({ seed: 12, rounds: 5, effect: (arm) => (arm === 'head' ? 0.9 : 1) }));
    expect(c.comparisons[0]!.cells.every((x) => x.reasons.some((r) => r.code === 'too-few-runs'))).toBe(true);
    expect(c.verdict).toBe('inconclusive');
    expect(c.warnings.join('\n')).toMatch(
      /5 rounds per arm over 8 cells can never reach significance.*at least 6 rounds/,
    );
  });

  it("says the plan check's warning once when the run loop already recorded it at plan time", () => {
    const doc = syntheticRun({ seed: 12, rounds: 5, effect: (arm) => (arm === 'head' ? 0.9 : 1) });
    const said = compareRun(doc).warnings.find((w) => /can never reach significance/.test(w))!;
    expect(said).toBeDefined();
    const again = compareRun({ ...doc, warnings: [`workload tpcb: ${said}`] }).warnings;
    expect(again.filter((w) => /can never reach significance/.test(w))).toEqual([`workload tpcb: ${said}`]);
  });

  it('marks partial results', () => {
    const result = syntheticRun({ seed: 13, rounds: 6, workloads: { tpcb: [1] } });
    result.status = 'interrupted';
    result.stopReason = 'SIGINT';
    expect(compareRun(result).warnings[0]).toMatch(/'interrupted' \(SIGINT\)/);
  });
});

describe('sequential looks (compareRun option)', () => {
  const schedule = [6, 12, 18];
  const run = (rounds: number, shift: number) =>
    syntheticRun({
      seed: 20 + rounds,
      rounds,
      noise: 0.02,
      effect: (arm, _, clients) => (arm === 'head' && clients === 8 ? shift : 1),
    });

  it('tests each look at its Pocock-type spent alpha and infers the look from the rounds', () => {
    const c = compareRun(run(6, 1), { sequential: { schedule } });
    expect(c.sequential).toMatchObject({ look: 1, looks: 3, schedule });
    expect(c.sequential!.perLookAlpha).toBeCloseTo(0.05 * Math.log(1 + (Math.E - 1) / 3), 6);
    expect(c.testAlpha).toBe(c.sequential!.perLookAlpha);
    expect(c.alpha).toBe(0.05);
    expect(c.comparisons[0]!.cells.every((x) => x.alpha === c.testAlpha)).toBe(true);
    expect(compareRun(run(12, 1), { sequential: { schedule } }).sequential!.look).toBe(2);
  });

  it('rejects schedules that are not increasing', () => {
    expect(() => compareRun(run(6, 1), { sequential: { schedule: [6, 6] } })).toThrow(
      /strictly increasing.*got \[6, 6\] \(look 2: 6\)/,
    );
  });
});
