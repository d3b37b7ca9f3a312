/**
 * The order of runs. Within a round every cell runs every arm once; cells are shuffled per round and
 * arms alternate inside each cell, so slow drift of the machine never lines up with one arm
 * (never all of one arm, then all of the other). Everything derives from one recorded seed.
 */
import type { CellKey } from '../core/results/result-types.js';

export type ArmOrder = 'random' | 'abba';

export interface PlannedRun extends CellKey {
  round: number;
  arm: string;
}

export interface PlanInput {
  /** Cells with the number of rounds each one takes part in. */
  cells: Array<CellKey & { rounds: number }>;
  arms: string[];
  order: ArmOrder;
  seed: number;
}

/**
 * Runs per round, in execution order. Every run of every round is built at once, synchronously: each size
 * it grows with is bounded where it enters pgperf, and their product, the runs of the whole plan, before
 * anything is built or started (PLANNED_RUNS in src/core/bounds.ts, checked by src/run/plan-size.ts), so
 * the plan stays small and this loop short.
 */
export function planRounds(input: PlanInput): PlannedRun[][] {
  const totalRounds = Math.max(0, ...input.cells.map((c) => c.rounds));
  const rounds: PlannedRun[][] = [];
  for (let round = 1; round <= totalRounds; round++) {
    const random = seededRandom(deriveSeed(input.seed, round));
    const cells = shuffle(
      input.cells.filter((c) => c.rounds >= round),
      random,
    );
    const runs: PlannedRun[] = [];
    cells.forEach((cell, k) => {
      const arms =
        input.order === 'random'
          ? shuffle(input.arms, random)
          : rotate(input.arms, (k + round - 1) % input.arms.length);
      for (const arm of arms) runs.push({ round, workload: cell.workload, clients: cell.clients, arm });
    });
    rounds.push(runs);
  }
  return rounds;
}

/** A 31-bit seed for round `round` of a run seeded with `seed` (also the client's --random-seed). */
export function deriveSeed(seed: number, round: number): number {
  let h = (seed ^ Math.imul(round, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) & 0x7fffffff;
}

/** A fresh random seed for a run that was not given one. */
export function newSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

/** mulberry32: small, fast, and good enough to shuffle a plan reproducibly. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher-Yates on a copy. */
export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function rotate<T>(items: readonly T[], by: number): T[] {
  return [...items.slice(by), ...items.slice(0, by)];
}
