/**
 * What a budget resolves on THIS runner: reads an A/A calibration document (`pgperf calibrate ... --out DIR`
 * writes DIR/run-*\/results.json), estimates each cell's per-round noise with estimateNoise (the same
 * function `pgperf calibrate` reports) and prints designPower's answer (the run loop's plan check) for the
 * default looks cut at several budgets: the smallest change each cell resolves with 80% power, Holm over
 * all the document's cells, α 0.05, O'Brien–Fleming-type spending.
 *
 * Run: npx tsx bench/budget-from-calibration.ts path/to/results.json [threshold%]
 */
import { readFile } from 'node:fs/promises';
import { designSequential } from '../src/core/compare/analysis/adaptive.js';
import { estimateNoise, designPower } from '../src/core/compare/power.js';
import { cellId, type RunResult } from '../src/core/results/result-types.js';

const [file, threshold = '2'] = process.argv.slice(2);
if (!file) throw new Error('usage: npx tsx bench/budget-from-calibration.ts results.json [threshold%]');
const result = JSON.parse(await readFile(file, 'utf8')) as RunResult;
const cells = result.plan.cells;
const noise = cells.map((cell) => ({ cell, noise: estimateNoise(result, cell) }));
const budgets = [10, 20, 30, 45, 60];
console.log(
  `${cells.length} cell(s), ${Math.max(...result.samples.map((s) => s.round))} calibration rounds, ` +
    `threshold ${threshold}%: smallest change resolved with 80% power`,
);
console.log(
  `| cell | noise per round | ${budgets.map((b) => `${b} rounds`).join(' | ')} | rounds for ${threshold}% |`,
);
console.log(`|---|---|${budgets.map(() => '---').join('|')}|---|`);
const powers = budgets.map((maxRounds) =>
  designPower({
    plan: designSequential({ schedule: [6, 10, 15, 20, 30, 45, 60], maxRounds }),
    hypotheses: cells.length,
    cells: noise,
    thresholdPct: Number(threshold),
  }),
);
cells.forEach((cell, i) => {
  const cols = powers.map((p) => (p.canReachAlpha ? `${p.cells[i]!.resolvablePct.toFixed(1)}%` : 'refused'));
  const c = powers[0]!.cells[i]!;
  console.log(
    `| ${cellId(cell)} | ${c.pairedCvPct.toFixed(1)}% (${c.noiseSource}) | ${cols.join(' | ')} | ${c.roundsForThreshold ?? '>1000'} |`,
  );
});
