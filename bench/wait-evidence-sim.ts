/**
 * The default steady-pass policy (all client counts, unchanged waits needed above 1 client;
 * src/core/compare/evidence/steady-evidence.ts and wait-evidence.ts) by seeded simulation through the real analysis
 * and decision: one select-only-like cell at 2 clients, base and head interleaved for a fixed number of
 * rounds (the workload's own, as with default flags), instruction counts that say "no change" (3
 * repetitions per arm, CV 0.05%), and every run's wait events sampled as pgperf samples them: 2 backends at
 * 10 Hz for 8 s (160 observations), each in a server wait with the arm's wait share (binomial), that share
 * varying ±1 point from run to run.
 *
 * Scenarios, over REPLICATES runs each:
 * - an unchanged head (TPS effect 0, waits unchanged): passing is right, failing is a false alarm;
 * - heads that only wait (a lock held longer, a sleep per commit): TPS down 2/5/10/20 % with instructions
 *   unchanged and the time lost spent in a server wait, so the wait share grows by about as many points.
 *   Passing one on steady evidence is the error the wait rule exists to prevent.
 * Each scenario runs with the default policy (all) and the previous default (1 client: at 2 clients the
 * timed metric alone decides) for comparison.
 *
 * Noise models (multiplicative, lognormal): "rounds X%": half the variance shared by base and head within a
 * round, as on this project's runner.
 *
 * Run: npx tsx bench/wait-evidence-sim.ts [replicates] [rounds]
 */
import { analyse } from '../src/core/compare/analysis/recorded-analysis.js';
import { decideRun } from '../src/flows/compare/pipeline/decide-run.js';
import { seededRandom } from '../src/core/stats/seeded-random.js';
import type { SteadyPass } from '../src/core/compare/evidence/steady-evidence.js';
import type { RunResult } from '../src/core/results/result-types.js';
import { document, gaussian, sample } from '../testkit/synthetic-run.js';
import { instructionRecord } from '../testkit/instruction-record.js';
import { waitDiagnostics } from '../testkit/wait-diagnostics.js';

const REPLICATES = Number(process.argv[2] ?? 400);
const ROUNDS = Number(process.argv[3] ?? 5);
const OBSERVATIONS = 160;
const BASE_WAIT_PCT = 5;
const NOISES = [3, 5, 10];
const EFFECTS = [0, -2, -5, -10, -20];

function simulate(seed: number, noisePct: number, effectPct: number, steadyPass: SteadyPass) {
  const random = seededRandom(seed);
  const normal = gaussian(random);
  const result: RunResult = {
    ...document(['base', 'head'], { 'select-only': [2] }, ROUNDS, []),
    analysis: { alpha: 0.05, thresholdPct: 2, metric: 'tps', steadyPass },
    instructions: instructionRecord({ seed: seed + 1, effect: 0, cv: 0.0005 }),
  };
  const sigma = noisePct / 100;
  // Throughput × (1 + e) by waiting alone: each transaction takes 1/(1 + e) of base's time, the extra spent
  // waiting, so head's wait share is w(1 + e) - e for base's share w.
  const e = effectPct / 100;
  for (let round = 1; round <= ROUNDS; round++) {
    const shared = (sigma / Math.SQRT2) * normal();
    for (const arm of ['base', 'head']) {
      const head = arm === 'head';
      const tps = 20_000 * (head ? 1 + effectPct / 100 : 1) * Math.exp(shared + (sigma / 2) * normal());
      const w = BASE_WAIT_PCT / 100 + (random() - 0.5) * 0.02;
      const share = Math.min(1, Math.max(0, head ? w * (1 + e) - e : w));
      let waiting = 0;
      for (let i = 0; i < OBSERVATIONS; i++) if (random() < share) waiting++;
      result.samples.push({
        ...sample({ round, workload: 'select-only', clients: 2, arm, metrics: { tps } }),
        diagnostics: waitDiagnostics(OBSERVATIONS, waiting),
      });
    }
  }
  const comparison = analyse(result);
  const decision = decideRun(result, comparison);
  const cell = comparison.comparisons[0]!.cells[0]!;
  return { outcome: decision.outcome, steady: cell.reasons[0]?.code === 'steady-unchanged' };
}

const pct = (n: number) => `${((100 * n) / REPLICATES).toFixed(1)}%`.padStart(6);
console.log(
  `wait-evidence simulation: ${REPLICATES} runs per row, 2 clients, ${ROUNDS} rounds, δ 2%, ` +
    `server waits ${BASE_WAIT_PCT}% of backend time in base, ${OBSERVATIONS} observations per run\n`,
);
console.log('noise       TPS effect  steady-pass  passed (by steady)  pending  failed');
for (const noisePct of NOISES) {
  for (const effectPct of EFFECTS) {
    for (const steadyPass of ['all', 1] as const) {
      const runs = Array.from({ length: REPLICATES }, (_, i) =>
        simulate(1000 * i + 17, noisePct, effectPct, steadyPass),
      );
      const count = (f: (r: (typeof runs)[number]) => boolean) => runs.filter(f).length;
      console.log(
        `${`rounds ${noisePct}%`.padEnd(11)} ${`${effectPct}%`.padStart(10)}  ${String(steadyPass).padStart(11)}  ` +
          `${pct(count((r) => r.outcome === 'passed'))} (${pct(count((r) => r.outcome === 'passed' && r.steady))})  ` +
          `${pct(count((r) => r.outcome === 'pending'))}  ${pct(count((r) => r.outcome === 'failed'))}`,
      );
    }
  }
}
