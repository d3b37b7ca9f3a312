/**
 * Speed of the statistics layer: compareRun over 64 cells (8 workloads × 8 client counts) with 30 rounds per
 * arm, every cell with its exact Mann–Whitney p, Hodges–Lehmann Δ% with 95% and 90% CIs, Welch diagnostic,
 * drift and curves. Budget: under 200 ms.
 *
 * Run: npx vitest bench --run bench/
 *
 * It prints the first (cold: JIT warm-up, exact null distribution not yet memoised) analysis time, then
 * vitest's statistics over repeated (warm) analyses.
 */
import { bench, describe } from 'vitest';
import { compareRun } from '../src/core/compare/analysis/compare-run.js';
import { SWEEP_8, syntheticRun } from '../testkit/synthetic-run.js';

const BUDGET_MS = 200;
const workloads = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`workload-${i}`, SWEEP_8]));
const result = syntheticRun({
  seed: 1,
  rounds: 30,
  workloads,
  noise: 0.02,
  effect: (arm, _, clients) => (arm === 'head' && clients === 64 ? 0.97 : 1),
});

const start = performance.now();
const first = compareRun(result);
const coldMs = performance.now() - start;
const cells = first.comparisons[0]!.cells.length;
console.log(
  `compareRun: ${cells} cells x 30 rounds per arm, first (cold) analysis ${coldMs.toFixed(1)} ms ` +
    `(budget ${BUDGET_MS} ms, ${coldMs < BUDGET_MS ? 'within' : 'OVER'} budget); verdict ${first.verdict}`,
);

describe('statistics layer', () => {
  bench('compareRun, 64 cells x 30 rounds per arm', () => {
    compareRun(result);
  });
});
