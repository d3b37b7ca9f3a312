import { describe, expect, it } from 'vitest';
import { deriveSeed, planRounds, type PlanInput } from '../../src/run/round-order.js';

const cells = [
  { workload: 'ro', clients: 1, rounds: 4 },
  { workload: 'ro', clients: 8, rounds: 4 },
  { workload: 'rw', clients: 1, rounds: 4 },
  { workload: 'rw', clients: 8, rounds: 2 },
];
const input: PlanInput = { cells, arms: ['base', 'head'], order: 'random', seed: 42 };
const key = (r: { workload: string; clients: number }) => `${r.workload}@${r.clients}`;

describe('planRounds', () => {
  it('runs every cell on every arm exactly once per round it takes part in', () => {
    const rounds = planRounds(input);
    expect(rounds).toHaveLength(4);
    rounds.forEach((runs, i) => {
      const expected = cells.filter((c) => c.rounds > i).flatMap((c) => [`${key(c)} base`, `${key(c)} head`]);
      expect(runs.map((r) => `${key(r)} ${r.arm}`).sort()).toEqual(expected.sort());
      expect(runs.every((r) => r.round === i + 1)).toBe(true);
    });
  });

  it('keeps the arms of a cell adjacent, so a round never runs all of one arm and then the other', () => {
    for (const order of ['random', 'abba'] as const) {
      for (const runs of planRounds({ ...input, order })) {
        for (let i = 0; i < runs.length; i += 2) {
          expect(key(runs[i]!)).toBe(key(runs[i + 1]!));
          expect(runs[i]!.arm).not.toBe(runs[i + 1]!.arm);
        }
      }
    }
  });

  it('is reproducible from its seed, and another seed gives another order', () => {
    expect(planRounds(input)).toEqual(planRounds(input));
    const orders = new Set(
      [1, 2, 3, 4, 5].map((seed) =>
        JSON.stringify(
          planRounds({ ...input, seed })
            .flat()
            .map((r) => `${key(r)}${r.arm}`),
        ),
      ),
    );
    expect(orders.size).toBeGreaterThan(1);
  });

  it('shuffles the cell order between rounds', () => {
    const rounds = planRounds({ ...input, cells: cells.map((c) => ({ ...c, rounds: 6 })) });
    const cellOrders = new Set(
      rounds.map((runs) =>
        runs
          .filter((_, i) => i % 2 === 0)
          .map(key)
          .join(','),
      ),
    );
    expect(cellOrders.size).toBeGreaterThan(1);
  });

  it('abba alternates which arm goes first from cell to cell and from round to round', () => {
    const rounds = planRounds({ ...input, order: 'abba' });
    const firsts = rounds.map((runs) => runs.filter((_, i) => i % 2 === 0).map((r) => r.arm));
    expect(firsts[0]).toEqual(['base', 'head', 'base', 'head']);
    expect(firsts[1]).toEqual(['head', 'base', 'head', 'base']);
    expect(firsts[2]!.slice(0, 2)).toEqual(['base', 'head']);
  });

  it('random order puts each arm first about half of the time', () => {
    const many = planRounds({ ...input, cells: cells.map((c) => ({ ...c, rounds: 100 })) });
    const baseFirst = many
      .flatMap((runs) => runs.filter((_, i) => i % 2 === 0))
      .filter((r) => r.arm === 'base').length;
    expect(baseFirst / 400).toBeGreaterThan(0.4);
    expect(baseFirst / 400).toBeLessThan(0.6);
  });

  it('handles three arms', () => {
    const rounds = planRounds({ ...input, arms: ['a', 'b', 'c'], order: 'abba' });
    for (const runs of rounds) {
      for (let i = 0; i < runs.length; i += 3) {
        expect(new Set(runs.slice(i, i + 3).map((r) => r.arm))).toEqual(new Set(['a', 'b', 'c']));
      }
    }
  });
});

describe('deriveSeed', () => {
  it('gives each round its own positive 31-bit seed, the same for every call', () => {
    const seeds = [1, 2, 3, 4].map((round) => deriveSeed(42, round));
    expect(new Set(seeds).size).toBe(4);
    for (const s of seeds) expect(s).toBeGreaterThanOrEqual(0);
    for (const s of seeds) expect(s).toBeLessThan(2 ** 31);
    expect(deriveSeed(42, 1)).toBe(seeds[0]);
  });
});
