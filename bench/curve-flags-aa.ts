/**
 * How often do the curve flags fire on A/A (the same install as base and head)? Seeded simulation through the
 * real compareRun: per curve shape, noise and rounds, REPLICATES synthetic runs with no change between the
 * arms, counting the comparisons where
 *
 * - peakMoved fires (the plateau-with-tolerance definition), and, for reference, where the naive definition
 *   "the argmax client count differs" would have fired (issue 15 point 6 measured ~50% on a plateau);
 * - collapseMoved fires;
 * - any cell is flagged unstable (inside a collapse region of base's curve), and where the arms disagree about
 *   the collapse regions (one arm has a region the other lacks).
 *
 * Shapes: a plateau (scales to 8 clients, then flat within ±1.5%), a real dip (peak at 16, -30% at 32-64,
 * recovery at 128: the region is real, so unstable should fire every time), and a borderline shoulder (a point
 * 18% below the peak, just inside the 20% fraction, that noise can push across it).
 *
 * Run: npx tsx bench/curve-flags-aa.ts [replicates]
 */
import { compareRun } from '../src/core/compare/analysis/compare-run.js';
import { COLLAPSE_DIP, syntheticRun } from '../testkit/synthetic-run.js';

const REPLICATES = Number(process.argv[2] ?? 1000);
const NOISES = [0.05, 0.1];
const ROUNDS = [6, 10, 20];
const SWEEP = [1, 2, 4, 8, 16, 32, 64, 128];

const SHAPES: Record<string, Record<number, number>> = {
  plateau: {
    1: 30_000,
    2: 58_000,
    4: 110_000,
    8: 180_000,
    16: 183_000,
    32: 180_500,
    64: 182_000,
    128: 179_000,
  },
  'real dip': COLLAPSE_DIP,
  'borderline shoulder': {
    1: 20_000,
    2: 39_000,
    4: 76_000,
    8: 140_000,
    16: 200_000,
    32: 164_000,
    64: 190_000,
    128: 185_000,
  },
};

const pct = (k: number) => `${((100 * k) / REPLICATES).toFixed(1).padStart(5)}%`;
const regionKey = (regions: ReadonlyArray<{ clients: number[] }>) =>
  JSON.stringify(regions.map((r) => r.clients));

console.log(`A/A curve flags: ${REPLICATES} replicates per row, seeded; alpha 0.05, threshold 2%`);
console.log(
  'shape                 noise rounds  peakMoved  (naive argmax)  collapseMoved  any unstable  regions differ',
);
let seed = 1;
for (const [name, shape] of Object.entries(SHAPES)) {
  for (const noise of NOISES) {
    for (const rounds of ROUNDS) {
      let peakMoved = 0;
      let naive = 0;
      let collapseMoved = 0;
      let unstable = 0;
      let differ = 0;
      for (let i = 0; i < REPLICATES; i++) {
        const result = syntheticRun({
          seed: seed++,
          rounds,
          noise,
          workloads: { w: SWEEP },
          level: (_, clients) => shape[clients]!,
        });
        const arm = compareRun(result).comparisons[0]!;
        const curve = arm.curves[0]!;
        if (curve.peakMoved) peakMoved++;
        if (curve.base.peakClients !== curve.head.peakClients) naive++;
        if (curve.collapseMoved) collapseMoved++;
        if (arm.unstableCells.length > 0) unstable++;
        if (regionKey(curve.base.collapseRegions) !== regionKey(curve.head.collapseRegions)) differ++;
      }
      console.log(
        `${name.padEnd(21)} ${`${noise * 100}%`.padStart(5)} ${String(rounds).padStart(6)}  ${pct(peakMoved)}  ` +
          `${pct(naive).padStart(14)}  ${pct(collapseMoved).padStart(13)}  ${pct(unstable).padStart(12)}  ${pct(differ).padStart(14)}`,
      );
    }
  }
}
