/**
 * Noise floors learned from history (src/core/stats/noise-floor.ts, applied by
 * src/core/compare/analysis/history-threshold.ts), by seeded simulation through the real decision code: what the
 * floor saves in false alarms and costs in power, against the configured threshold alone.
 *
 * The model (multiplicative, lognormal), per cell:
 * - run noise σ 3% per measured run, half of its variance shared by base and head within a round;
 * - a build offset τ: each build of PostgreSQL runs at its own level, for all its runs (code layout,
 *   alignment: a comment-only rebuild moves TPS on real runners). A same-job comparison sees one build per
 *   arm, so its test cannot tell base's and head's offsets from the patch;
 * - a job offset ω 2%: each job (night) runs at its own level, shared by the arms of that job.
 * History: NIGHTS nightly runs, each a new build in a new job, 5 runs each; a point is their median.
 * A PR run: base and head built apart (each its own offset), one job, 10 paired rounds; head's true
 * effect as listed. Decided by analyse + decideRun with `analysis.noiseFloors` from the history (the fence
 * as listed), the configured threshold 2%, α 0.05.
 * Printed per row over REPLICATES runs: failed (a false alarm at effect 0, power below), passed, pending.
 * pgperf uses Q3 + 1.5·IQR with at least 12 nights (FLOOR_FENCE_IQR, MIN_FLOOR_RUNS); the other rows are
 * what it was chosen against.
 *
 * Run: npx tsx bench/noise-floor-sim.ts [replicates]
 */
import { noiseFloorPct } from '../src/core/stats/noise-floor.js';
import { seededRandom } from '../src/core/stats/seeded-random.js';
import { JOB, ROUNDS, SIGMA, decideFloorRun, nightlyMedians } from './lib/floor-ab-run.js';
import type { NoiseFloor } from '../src/core/results/result-types.js';
import { gaussian } from '../testkit/synthetic-run.js';

const REPLICATES = Number(process.argv[2] ?? 400);
const BUILD_OFFSETS = [0, 0.01, 0.03, 0.05];
const EFFECTS = [0, -3, -5, -10, -20];
/** null: the configured threshold alone. */
const RULES: Array<{ name: string; fence: number | null; nights: number }> = [
  { name: 'configured 2%', fence: null, nights: 30 },
  { name: 'Q3+3IQR, 12 nights', fence: 3, nights: 12 },
  { name: 'Q3+3IQR, 30 nights', fence: 3, nights: 30 },
  { name: 'Q3+1.5IQR, 12 nights', fence: 1.5, nights: 12 },
  { name: 'Q3+1.5IQR, 30 nights', fence: 1.5, nights: 30 },
  { name: 'Q3+1IQR, 30 nights', fence: 1, nights: 30 },
];

function simulate(seed: number, tau: number, effectPct: number, rule: (typeof RULES)[number]) {
  const normal = gaussian(seededRandom(seed));
  // Runs of one build in one job: median of `runs` with round-shared and own noise.
  const nights = nightlyMedians(rule.nights, normal, tau);
  const floor = rule.fence === null ? null : noiseFloorPct(nights, rule.fence);
  const noiseFloors: NoiseFloor[] = floor
    ? [
        {
          workload: 'select-only',
          clients: 1,
          metric: 'tps',
          floorPct: floor.floorPct,
          runs: rule.nights,
          from: '2026-10-01',
          to: '2026-11-01',
        },
      ]
    : [];
  return {
    outcome: decideFloorRun(normal, { tau, effectPct, thresholdPct: 2, noiseFloors }),
    floorPct: floor?.floorPct ?? null,
  };
}

const pct = (n: number) => `${((100 * n) / REPLICATES).toFixed(1)}%`.padStart(6);
console.log(
  `noise-floor simulation: ${REPLICATES} runs per row; run noise ${100 * SIGMA}% (half round-shared), ` +
    `job offset ${100 * JOB}%, ${ROUNDS} paired rounds, configured threshold 2%\n`,
);
console.log('build offset  rule                   effect  failed  passed  pending  median floor');
for (const tau of BUILD_OFFSETS) {
  for (const rule of RULES) {
    for (const effectPct of EFFECTS) {
      const runs = Array.from({ length: REPLICATES }, (_, i) =>
        simulate(7919 * i + 13, tau, effectPct, rule),
      );
      const count = (outcome: string) => runs.filter((r) => r.outcome === outcome).length;
      const floors = runs.flatMap((r) => (r.floorPct === null ? [] : [r.floorPct])).sort((a, b) => a - b);
      const floor = floors.length ? `${floors[Math.floor(floors.length / 2)]!.toFixed(1)}%` : '-';
      console.log(
        `${`${100 * tau}%`.padStart(12)}  ${rule.name.padEnd(21)} ${`${effectPct}%`.padStart(7)}  ` +
          `${pct(count('failed'))}  ${pct(count('passed'))}  ${pct(count('pending'))}  ${floor.padStart(12)}`,
      );
    }
  }
}
