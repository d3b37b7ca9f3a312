/**
 * Steady evidence in the decision (src/core/compare/evidence/steady-evidence.ts) by seeded simulation through the real
 * run-loop control and decision code: one select-only-like cell at 1 client, base and head interleaved, the
 * adaptive design the Action recommends (looks at 6, 10, 15, 20, 30 rounds; AdaptiveControl decides when to
 * stop, as in the run loop), instruction counts that say "no change" (3 repetitions per arm, CV 0.05%),
 * and TPS noise of three kinds. What is printed per scenario, over REPLICATES runs:
 * - passed / pending / failed: the decision's outcome (decideRun on the analysed document);
 * - by steady: the share passed on the steady evidence (reason steady-unchanged), the rest by TPS alone;
 * - rounds: the median rounds measured before the run stopped.
 * Scenarios: an unchanged head (passing is right, failing a false alarm), and heads that only add waiting
 * (TPS down 2%, 5%, 10%, 20% with unchanged instructions, e.g. a sleep per commit): passing those is what
 * the policy accepts at 1 client with its limit stated; the table shows how often, by size.
 * Each scenario runs once with steady-pass 1 (the default) and once with it off, for comparison.
 *
 * Noise models (multiplicative, lognormal): "iid X%" every run independent; "rounds X%" half the variance
 * shared by base and head within a round, as on this project's runner.
 *
 * Run: npx tsx bench/steady-pass-sim.ts [replicates]
 */
import { median } from 'simple-statistics';
import { designSequential } from '../src/core/compare/analysis/adaptive.js';
import { AdaptiveControl } from '../src/run/adaptive-control.js';
import { analyse } from '../src/core/compare/analysis/recorded-analysis.js';
import { decideRun } from '../src/flows/compare/pipeline/decide-run.js';
import { seededRandom } from '../src/core/stats/seeded-random.js';
import type { RunResult } from '../src/core/results/result-types.js';
import { document, gaussian, sample } from '../testkit/synthetic-run.js';
import { instructionRecord } from '../testkit/instruction-record.js';

const REPLICATES = Number(process.argv[2] ?? 400);
const SCHEDULE = [6, 10, 15, 20, 30];
const plan = designSequential({ schedule: SCHEDULE, alpha: 0.05, spending: 'obrien-fleming', maxRounds: 30 });

interface Noise {
  name: string;
  pct: number;
  shared: boolean;
}
const NOISES: Noise[] = [
  { name: 'iid 3%', pct: 3, shared: false },
  { name: 'rounds 5%', pct: 5, shared: true },
  { name: 'rounds 10%', pct: 10, shared: true },
];
const EFFECTS = [0, -2, -5, -10, -20];

function simulate(seed: number, noise: Noise, effectPct: number, steadyPass: number) {
  const normal = gaussian(seededRandom(seed));
  const result: RunResult = {
    ...document(['base', 'head'], { 'select-only': [1] }, 30, []),
    analysis: { alpha: 0.05, thresholdPct: 2, metric: 'tps', steadyPass },
    // Instruction counts that say "no change": 3 repetitions per arm, CV 0.05%.
    instructions: instructionRecord({ seed: seed + 1, effect: 0, cv: 0.0005 }),
  };
  const control = new AdaptiveControl(plan, { thresholdPct: 2, steadyPass }, { estimatedRoundS: 1 });
  const sigma = noise.pct / 100;
  let rounds = 0;
  for (let round = 1; round <= 30; round++) {
    if (control.beforeRound(result, round, () => {}) !== null) break;
    const shared = noise.shared ? (sigma / Math.SQRT2) * normal() : 0;
    const own = noise.shared ? sigma / 2 : sigma; // per-arm part: ln(head/base) has SD sigma (rounds) or sigma·√2 (iid)
    for (const arm of ['base', 'head']) {
      const effect = arm === 'head' ? 1 + effectPct / 100 : 1;
      const tps = 20_000 * effect * Math.exp(shared + own * normal());
      result.samples.push(sample({ round, workload: 'select-only', clients: 1, arm, metrics: { tps } }));
    }
    rounds = round;
  }
  control.finish(result, rounds, () => {});
  const comparison = analyse(result);
  const decision = decideRun(result, comparison);
  const cell = comparison.comparisons[0]!.cells[0]!;
  return { outcome: decision.outcome, steady: cell.reasons[0]?.code === 'steady-unchanged', rounds };
}

const pct = (n: number) => `${((100 * n) / REPLICATES).toFixed(1)}%`.padStart(6);
console.log(
  `steady-pass simulation: ${REPLICATES} runs per row, δ 2%, looks at ${SCHEDULE.join(', ')} rounds\n`,
);
console.log('noise       TPS effect  steady-pass  passed (by steady)  pending  failed  median rounds');
for (const noise of NOISES) {
  for (const effectPct of EFFECTS) {
    for (const steadyPass of [1, 0]) {
      const runs = Array.from({ length: REPLICATES }, (_, i) =>
        simulate(1000 * i + 17, noise, effectPct, steadyPass),
      );
      const count = (f: (r: (typeof runs)[number]) => boolean) => runs.filter(f).length;
      console.log(
        `${noise.name.padEnd(11)} ${`${effectPct}%`.padStart(10)}  ${String(steadyPass === 1 ? '1' : 'off').padStart(11)}  ` +
          `${pct(count((r) => r.outcome === 'passed'))} (${pct(count((r) => r.outcome === 'passed' && r.steady))})  ` +
          `${pct(count((r) => r.outcome === 'pending'))}  ${pct(count((r) => r.outcome === 'failed'))}  ` +
          `${String(median(runs.map((r) => r.rounds))).padStart(13)}`,
      );
    }
  }
}
