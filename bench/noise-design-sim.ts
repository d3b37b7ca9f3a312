/**
 * Does the planner deliver what it states? `pgperf plan` (src/flows/compare/noise/noise-design.ts) recommends, from a
 * cell's noise per round, the rounds n that resolve a threshold δ with 80% power after Holm over m cells, and
 * states the smallest change r ≤ δ that n rounds resolve. Seeded simulation through the real compare code
 * (compareRun: signed-rank test on the rounds' log-ratios, Holm over the cells, α 0.05):
 *
 * - "known noise": n and r from the true noise. Power: one of the m cells changed by r (head slower by the
 *   factor 1/(1 + r)), the share of replicates in which that cell's Holm-adjusted p < α (stated: ≥ 80%), and
 *   the share in which it is called a regression (also needs the estimate beyond δ; at r < δ less often).
 *   False alarms: the same n rounds A/A over m cells, the share of replicates with any cell called a
 *   regression or improvement (stated: ≤ α) and with any adjusted p < α.
 * - "calibrated": what a user gets: an A/A calibration (10 rounds unless given) estimates the noise
 *   (estimateNoise, as `pgperf calibrate` stores it), the planner recommends n from that estimate, and the
 *   comparison at n rounds has a change of exactly δ in one cell: the share significant, the mean (and
 *   range) of n; planned from the bare estimate, and from its 80% upper bound (upperNoiseBound: what the
 *   planner uses).
 *
 * Noise model: lognormal, every run independent with SD σ/√2 of ln, so ln(head/base) per round has SD σ
 * (the per-round noise the planner reads). "shared" puts half of each run's variance in a per-round term
 * both arms share (as on real runners), with the per-round log-ratio SD still σ.
 *
 * Run: npx tsx bench/noise-design-sim.ts [replicates] [calibration rounds]
 */
import { compareRun } from '../src/core/compare/analysis/compare-run.js';
import { estimateNoise } from '../src/core/compare/power.js';
import { resolutionOf } from '../src/flows/compare/noise/noise-design.js';
import type { NoiseEstimate } from '../src/core/compare/noise-design-types.js';
import { upperNoiseBound } from '../src/flows/compare/noise/runner-noise.js';
import type { RunResult, Sample } from '../src/core/results/result-types.js';
import { seededRandom } from '../src/core/stats/seeded-random.js';
import { document, gaussian, sample } from '../testkit/synthetic-run.js';

const REPLICATES = Number(process.argv[2] ?? 1000);
const ALPHA = 0.05;
/** Rounds of the simulated calibration the "calibrated" columns plan from (second argument, default 10). */
const CALIBRATION_ROUNDS = Number(process.argv[3] ?? 10);

interface Scenario {
  /** Per-round noise (SD of ln(head/base)) as a CV in percent. */
  noisePct: number;
  cells: number;
  thresholdPct: number;
  shared: boolean;
}

const scenarios: Scenario[] = [
  { noisePct: 2, cells: 1, thresholdPct: 2, shared: false },
  { noisePct: 5, cells: 1, thresholdPct: 5, shared: false },
  { noisePct: 3, cells: 7, thresholdPct: 3, shared: false },
  { noisePct: 3, cells: 7, thresholdPct: 3, shared: true },
  { noisePct: 10, cells: 4, thresholdPct: 8, shared: false },
  { noisePct: 1, cells: 7, thresholdPct: 1, shared: true },
];

/** A run of `cells` cells (w@1..w@cells) over `rounds` rounds; head of cell 1 slower by `factor`. */
function simulate(s: Scenario, rounds: number, factor: number, seed: number): RunResult {
  const normal = gaussian(seededRandom(seed));
  const sigma = Math.log1p(s.noisePct / 100);
  // Per run: ln noise = shared round term + own term, with Var(own) = σ²/2 so that ln(h/b) has SD σ.
  const own = sigma / Math.SQRT2;
  const clients = Array.from({ length: s.cells }, (_, i) => i + 1);
  const samples: Sample[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const c of clients) {
      const roundTerm = s.shared ? own * normal() : 0;
      for (const arm of ['base', 'head']) {
        const effect = arm === 'head' && c === 1 ? factor : 1;
        const tps = 10_000 * effect * Math.exp(roundTerm + own * normal());
        samples.push(sample({ round, workload: 'w', clients: c, arm, metrics: { tps } }));
      }
    }
  }
  return document(['base', 'head'], { w: clients }, rounds, samples);
}

/** A noise estimate from `points` rounds (0: the true noise, planned with as is). */
const noiseOf = (perRoundCvPct: number, points: number, bound = true): NoiseEstimate => ({
  workload: 'w',
  clients: 1,
  id: 'w@1',
  source: 'calibration',
  runId: 'sim',
  date: '2026-01-01T00:00:00Z',
  points,
  pairedCvPct: perRoundCvPct,
  runCvPct: null,
  perRoundCvPct,
  planningCvPct: bound ? upperNoiseBound(perRoundCvPct, points) : perRoundCvPct,
});

const plan = (s: Scenario, noise: NoiseEstimate, rounds = 10) =>
  resolutionOf(noise, {
    rounds,
    hypotheses: s.cells,
    alpha: ALPHA,
    thresholdPct: s.thresholdPct,
  });

const pct = (k: number) => `${((100 * k) / REPLICATES).toFixed(1)}%`;
console.log(
  `${REPLICATES} replicates per row, alpha ${ALPHA}, power 80% stated, Holm over the cells, calibration ${CALIBRATION_ROUNDS} rounds`,
);
console.log(
  '| noise/round | cells | threshold | model | rounds | resolves | power at resolves (p) | regression at resolves | A/A any verdict | A/A any p | bare estimate: rounds mean | bare estimate: power at threshold | upper bound: rounds mean (min-max) | upper bound: power at threshold |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const [k, s] of scenarios.entries()) {
  const known = plan(s, noiseOf(s.noisePct, 0));
  const n = known.recommendedRounds!;
  const r = plan(s, noiseOf(s.noisePct, 0), n).resolvablePct;
  let significant = 0;
  let regression = 0;
  let falseVerdict = 0;
  let falseP = 0;
  let calibratedSignificant = 0;
  let bareSignificant = 0;
  const calibratedRounds: number[] = [];
  const bareRounds: number[] = [];
  for (let i = 0; i < REPLICATES; i++) {
    const seed = 1_000_000 * (k + 1) + i;
    const changed = compareRun(simulate(s, n, 1 / (1 + r / 100), seed), {
      alpha: ALPHA,
      thresholdPct: s.thresholdPct,
    });
    const cell = changed.comparisons[0]!.cells.find((c) => c.id === 'w@1')!;
    if (cell.pAdjusted !== null && cell.pAdjusted < ALPHA) significant++;
    if (cell.verdict === 'regression') regression++;
    const aa = compareRun(simulate(s, n, 1, seed + 500_000), { alpha: ALPHA, thresholdPct: s.thresholdPct });
    const cells = aa.comparisons[0]!.cells;
    if (cells.some((c) => c.verdict === 'regression' || c.verdict === 'improvement')) falseVerdict++;
    if (cells.some((c) => c.pAdjusted !== null && c.pAdjusted < ALPHA)) falseP++;
    // A calibration (A/A, one cell) estimates the noise; the planner sizes the run from the estimate.
    const calibration = simulate({ ...s, cells: 1 }, CALIBRATION_ROUNDS, 1, seed + 700_000);
    const estimated = estimateNoise(calibration, { workload: 'w', clients: 1 }).pairedCvPct!;
    const detected = (rounds: number, offset: number) => {
      const atThreshold = compareRun(simulate(s, rounds, 1 / (1 + s.thresholdPct / 100), seed + offset), {
        alpha: ALPHA,
        thresholdPct: s.thresholdPct,
      });
      const c1 = atThreshold.comparisons[0]!.cells.find((c) => c.id === 'w@1')!;
      return c1.pAdjusted !== null && c1.pAdjusted < ALPHA ? 1 : 0;
    };
    const m = plan(s, noiseOf(estimated, CALIBRATION_ROUNDS)).recommendedRounds ?? 1000;
    calibratedRounds.push(m);
    calibratedSignificant += detected(m, 900_000);
    const bare = plan(s, noiseOf(estimated, CALIBRATION_ROUNDS, false)).recommendedRounds ?? 1000;
    bareRounds.push(bare);
    bareSignificant += detected(bare, 900_000);
  }
  const mean = (v: number[]) => (v.reduce((a, b) => a + b, 0) / v.length).toFixed(1);
  console.log(
    `| ${s.noisePct}% | ${s.cells} | ${s.thresholdPct}% | ${s.shared ? 'shared' : 'iid'} | ${n} | ${r.toFixed(2)}% | ` +
      `${pct(significant)} | ${pct(regression)} | ${pct(falseVerdict)} | ${pct(falseP)} | ` +
      `${mean(bareRounds)} | ${pct(bareSignificant)} | ` +
      `${mean(calibratedRounds)} (${Math.min(...calibratedRounds)}-${Math.max(...calibratedRounds)}) | ${pct(calibratedSignificant)} |`,
  );
}
