/**
 * The planning arithmetic: the smallest change (percent) the adaptive design resolves with 80% power within
 * its budget, per per-round noise (SD of ln(head/base), as a CV) and budget, for 1 and 7 cells, from
 * designPower (the same function the run loop's plan check uses). Looks at 6, 10, 15, 20, 30, 45, 60 rounds
 * cut at the budget, O'Brien–Fleming-type spending, α 0.05.
 *
 * Run: npx tsx bench/plan-power.ts
 */
import { designSequential } from '../src/core/compare/analysis/adaptive.js';
import { designPower } from '../src/core/compare/power.js';

const budgets = [10, 15, 20, 30, 45, 60];
const noises = [1, 2, 3, 5, 8, 12];
for (const hypotheses of [1, 7]) {
  console.log(
    `\n${hypotheses} cell(s): smallest change resolved with 80% power (per-round noise x budget in rounds)`,
  );
  console.log(`| noise | ${budgets.map((b) => `${b} rounds`).join(' | ')} |`);
  console.log(`|---|${budgets.map(() => '---').join('|')}|`);
  for (const pairedCvPct of noises) {
    const row = budgets.map((maxRounds) => {
      const plan = designSequential({ schedule: [6, 10, 15, 20, 30, 45, 60], maxRounds });
      const cell = { workload: 'w', clients: 1 };
      const p = designPower({
        plan,
        hypotheses,
        cells: [{ cell, noise: { cell, rounds: 10, pairedCvPct, runCvPct: null } }],
      });
      return p.canReachAlpha ? `${p.cells[0]!.resolvablePct.toFixed(1)}%` : 'refused';
    });
    console.log(`| ${pairedCvPct}% | ${row.join(' | ')} |`);
  }
}
