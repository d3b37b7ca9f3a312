/**
 * A synthetic instruction-mode record: k repetitions per arm of one workload's 1-client cell, each count
 * level × (1 + effect for head) × (1 + cv·N(0,1)), seeded, with a profile of six movers.
 */
import type { InstructionSample, InstructionsRecord } from '../src/core/results/instructions.js';
import { seededRandom } from '../src/core/stats/seeded-random.js';
import { gaussian } from './synthetic-run.js';

/** One counted repetition of a 1-client cell, as the counting step records it (200 and 1200 transactions). */
export function countedSample(
  workload: string,
  arm: string,
  repetition: number,
  perTx: number,
  counter: InstructionSample['counter'] = 'cachegrind',
): InstructionSample {
  return {
    workload,
    clients: 1,
    arm,
    repetition,
    counter,
    shortInstructions: 10e6 + 200 * perTx,
    longInstructions: 10e6 + 1200 * perTx,
    perTx,
  };
}

export function instructionRecord(opts: {
  workload?: string;
  seed: number;
  effect: number;
  cv: number;
  k?: number;
  head?: 'cachegrind' | 'perf';
}): InstructionsRecord {
  const normal = gaussian(seededRandom(opts.seed));
  const samples: InstructionSample[] = [];
  for (let rep = 1; rep <= (opts.k ?? 3); rep++) {
    for (const arm of ['base', 'head']) {
      const perTx = 43_900 * (arm === 'head' ? 1 + opts.effect : 1) * (1 + opts.cv * normal());
      const counter = arm === 'head' ? (opts.head ?? 'cachegrind') : 'cachegrind';
      samples.push(countedSample(opts.workload ?? 'select-only', arm, rep, perTx, counter));
    }
  }
  return {
    counter: 'cachegrind',
    settings: {
      [opts.workload ?? 'select-only']: {
        short: 200,
        long: 1200,
        warmup: 200,
        repetitions: opts.k ?? 3,
        thresholdPct: 1,
      },
    },
    wallS: 42,
    samples,
    profiles: [
      {
        workload: opts.workload ?? 'select-only',
        clients: 1,
        base: 'base',
        head: 'head',
        file: 'instructions/select-only.head-vs-base.tsv',
        movers: [1, 2, 3, 4, 5, 6].map((i) => ({
          fn: `fn${i}`,
          file: '???',
          baseIrPerTx: 100,
          headIrPerTx: 100 + 100 / i,
          deltaIrPerTx: 100 / i,
        })),
      },
    ],
    failures: [],
    notes: [],
  };
}
