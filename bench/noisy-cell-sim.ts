/**
 * How often a cell is marked "unstable on this runner" (src/core/compare/noisy-cell.ts), by seeded
 * simulation through the real shiftStatistics: n rounds of base and head with independent per-run lognormal
 * noise (per-round paired spread σ·√2) and a shared per-round factor (±10 %, which pairing cancels), δ = 2 %.
 * Printed per true paired spread (as a multiple of δ) and rounds: the share of cells marked, and the median
 * estimated spread. The mark should be rare well below δ, common well above it, and the estimate should
 * follow the truth (1.4826·MAD is unbiased under normal noise; its relative error is about 1.17/√n).
 *
 * Run: npx tsx bench/noisy-cell-sim.ts [replicates]
 */
import { median } from 'simple-statistics';
import { noisyCellNote } from '../src/core/compare/noisy-cell.js';
import { shiftStatistics } from '../src/core/compare/shift-statistics.js';
import { seededRandom } from '../src/core/stats/seeded-random.js';
import { gaussian } from '../testkit/synthetic-run.js';

const replicates = Number(process.argv[2] ?? 4_000);
const THRESHOLD_PCT = 2;

console.log(`noisy-cell mark, δ ${THRESHOLD_PCT}%, ${replicates} replicates per scenario (seeded)`);
console.log('rounds  true spread (x δ)  marked   median estimate');
let seed = 1;
for (const rounds of [5, 10, 20, 30]) {
  for (const multiple of [0.25, 0.5, 0.75, 1, 1.5, 2, 4]) {
    const normal = gaussian(seededRandom(seed++));
    const spread = (multiple * THRESHOLD_PCT) / 100; // SD of ln(head/base) per round
    const perRun = spread / Math.SQRT2;
    let marked = 0;
    const estimates: number[] = [];
    for (let r = 0; r < replicates; r++) {
      const base = new Map<number, number>();
      const head = new Map<number, number>();
      for (let round = 1; round <= rounds; round++) {
        const shared = Math.exp(0.1 * normal());
        base.set(round, 10_000 * shared * Math.exp(perRun * normal()));
        head.set(round, 10_000 * shared * Math.exp(perRun * normal()));
      }
      const stats = shiftStatistics([...base.values()], [...head.values()], { rounds: { base, head } });
      estimates.push(stats.aaSpreadPct!);
      if (noisyCellNote(stats.aaSpreadPct, THRESHOLD_PCT, true)) marked++;
    }
    const truth = 100 * Math.expm1(spread);
    console.log(
      `${String(rounds).padStart(6)}  ${multiple.toFixed(2).padStart(6)} (${truth.toFixed(2)}%)   ` +
        `${((100 * marked) / replicates).toFixed(1).padStart(5)}%   ${median(estimates).toFixed(2)}%`,
    );
  }
}
