/**
 * The A/B run the noise-floor simulations decide (bench/noise-floor-sim.ts, bench/floor-cap-sim.ts): one
 * select-only cell at 1 client, ROUNDS interleaved rounds of base and head on one runner, lognormal noise
 * with a job-level shift shared by both arms, a per-arm level drawn with the history's run-to-run spread
 * (`tau`), a within-round spread SIGMA half shared by the round, and head `effectPct` away from base.
 */
import { analyse } from '../../src/core/compare/analysis/recorded-analysis.js';
import type { NoiseFloor, RunResult } from '../../src/core/results/result-types.js';
import { decideRun } from '../../src/flows/compare/pipeline/decide-run.js';
import { document, sample } from '../../testkit/synthetic-run.js';

export const ROUNDS = 10;
export const SIGMA = 0.03;
export const JOB = 0.02;

/** The outcome of one simulated A/B run, judged at `thresholdPct` with the floors given. */
export function decideFloorRun(
  normal: () => number,
  opts: { tau: number; effectPct: number; thresholdPct: number; noiseFloors: NoiseFloor[] },
): string {
  const result: RunResult = {
    ...document(['base', 'head'], { 'select-only': [1] }, ROUNDS, []),
    analysis: {
      alpha: 0.05,
      thresholdPct: opts.thresholdPct,
      metric: 'tps',
      ...(opts.noiseFloors.length > 0 ? { noiseFloors: opts.noiseFloors } : {}),
    },
  };
  const job = Math.exp(JOB * normal());
  const base = 20_000 * job * Math.exp(opts.tau * normal());
  const head = 20_000 * job * Math.exp(opts.tau * normal()) * (1 + opts.effectPct / 100);
  for (let round = 1; round <= ROUNDS; round++) {
    const shared = (SIGMA / Math.SQRT2) * normal();
    for (const [arm, level] of [
      ['base', base],
      ['head', head],
    ] as const) {
      const tps = level * Math.exp(shared + (SIGMA / Math.SQRT2) * normal());
      result.samples.push(sample({ round, workload: 'select-only', clients: 1, arm, metrics: { tps } }));
    }
  }
  return decideRun(result, analyse(result)).outcome;
}

/**
 * One-arm nightly medians a floor is learned from: each night a level (`levelOf(k)`, else 20,000 with the
 * history's spread `tau` and a job shift), and the median of 5 runs around it with the within-round spread.
 */
export function nightlyMedians(
  nights: number,
  normal: () => number,
  tau: number,
  levelOf?: (night: number) => number,
): number[] {
  const run = (level: number) =>
    level * Math.exp((SIGMA / Math.SQRT2) * normal() + (SIGMA / Math.SQRT2) * normal());
  return Array.from({ length: nights }, (_, k) => {
    const level = levelOf?.(k) ?? 20_000 * Math.exp(tau * normal() + JOB * normal());
    const values = Array.from({ length: 5 }, () => run(level)).sort((a, b) => a - b);
    return values[2]!;
  });
}
