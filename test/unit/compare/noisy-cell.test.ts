/**
 * Cells unstable on this runner: an A/A-style spread above the threshold is said in a 'noisy-cell' note
 * (shown once per table with the cells' client counts), and it never takes the cell out of the gate.
 */
import { describe, expect, it } from 'vitest';
import { compareRun } from '../../../src/core/compare/analysis/compare-run.js';
import { compareSamples } from '../../../src/core/compare/analysis/compare-samples.js';
import { decide } from '../../../src/core/compare/decision/decision.js';
import { aaSpreadPct, noisyCellNote } from '../../../src/core/compare/noisy-cell.js';
import type { CellComparison, RunComparison } from '../../../src/core/compare/comparison-types.js';
import { buildTables } from '../../../src/core/report/table-model.js';
import { seededRandom } from '../../../src/core/stats/seeded-random.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';

const cells = (c: RunComparison): CellComparison[] => c.comparisons.flatMap((a) => a.cells);
const noisy = (cell: CellComparison) => cell.notes.find((n) => n.code === 'noisy-cell');

describe('aaSpreadPct', () => {
  it('is the robust spread of the paired log-ratios, or √2 × base’s own spread, in percent', () => {
    expect(aaSpreadPct({ logRatios: [0.01, -0.01, 0.02, 0, -0.02] })).toBeCloseTo(
      100 * Math.expm1(0.014826),
      6,
    );
    // A constant change does not widen the paired spread.
    const shifted = [0.01, -0.01, 0.02, 0, -0.02].map((d) => d - 0.05);
    expect(aaSpreadPct({ logRatios: shifted })).toBeCloseTo(
      aaSpreadPct({ logRatios: [0.01, -0.01, 0.02, 0, -0.02] })!,
      9,
    );
    const base = [100, 102, 98, 101, 99].map((v) => v * 1000);
    const single = 1.4826 * 0.01 * Math.SQRT2; // MAD of ln(base) ≈ 0.01
    expect(aaSpreadPct({ base })).toBeCloseTo(100 * Math.expm1(single), 1);
    expect(aaSpreadPct({ logRatios: [0.1, -0.1] })).toBeNull();
    expect(aaSpreadPct({ base: [1, 2] })).toBeNull();
  });

  it('notes a spread above the threshold only, naming both numbers', () => {
    expect(noisyCellNote(1.9, 2, true)).toBeUndefined();
    expect(noisyCellNote(null, 2, true)).toBeUndefined();
    expect(noisyCellNote(4.25, 2, true)?.message).toMatch(
      /^unstable on this runner: an A\/A-style spread of 4\.3% \(head against base per round, beyond the change\) exceeds the 2% threshold/,
    );
    expect(noisyCellNote(4.25, 2, false)?.message).toMatch(/\(base against itself\)/);
  });
});

describe('noisy cells in a run', () => {
  it('a quiet runner marks nothing; a noisy one marks every cell, in one note per table', () => {
    const quiet = compareRun(syntheticRun({ seed: 5, rounds: 12, noise: 0.004 }));
    expect(cells(quiet).filter(noisy)).toEqual([]);
    for (const cell of cells(quiet)) expect(cell.aaSpreadPct).toBeLessThan(2);

    const loud = compareRun(syntheticRun({ seed: 5, rounds: 12, noise: 0.06 }));
    expect(cells(loud).every((c) => noisy(c) !== undefined)).toBe(true);
    const [table] = buildTables(loud)[0]!.workloads[0]!.tables;
    const notes = table!.notes.filter((n) => /unstable on this runner/.test(n.message));
    expect(notes).toHaveLength(1);
    expect(notes[0]!.clients).toEqual([1, 2, 4, 8, 16, 32, 64, 128]);
  });

  it('round-shared dips cancel in the pairs: a runner whose rounds swing by 10% is not marked', () => {
    const swing = seededRandom(9);
    const byRound = new Map<number, number>();
    const shared = (round: number) => {
      if (!byRound.has(round)) byRound.set(round, 0.8 + 0.4 * swing());
      return byRound.get(round)!;
    };
    const c = compareRun(
      syntheticRun({ seed: 6, rounds: 12, noise: 0.003, effect: (_arm, _w, _c, round) => shared(round) }),
    );
    for (const cell of cells(c)) {
      expect(cell.base.cvPct).toBeGreaterThan(5);
      expect(noisy(cell)).toBeUndefined();
    }
  });

  it('a marked cell still gates: a 15% regression on a noisy runner fails', () => {
    const c = compareRun(
      syntheticRun({
        seed: 7,
        rounds: 20,
        noise: 0.03,
        workloads: { tpcb: [8] },
        effect: (arm) => (arm === 'head' ? 0.85 : 1),
      }),
    );
    const [cell] = cells(c);
    expect(noisy(cell!)).toBeDefined();
    expect(cell!.verdict).toBe('regression');
    expect(cell!.unstable).toBeUndefined();
    expect(decide(c).outcome).toBe('failed');
  });

  it('unpaired (a stored baseline): base against itself', () => {
    const r = seededRandom(3);
    const values = (level: number) => Array.from({ length: 10 }, () => level * (1 + 0.1 * (r() - 0.5)));
    const cmp = compareSamples(values(1000), values(1000), { thresholdPct: 2 });
    expect(cmp.test).toBe('mann-whitney');
    expect(cmp.aaSpreadPct).toBeGreaterThan(2);
    expect(cmp.notes.find((n) => n.code === 'noisy-cell')?.message).toMatch(/base against itself/);
  });
});
