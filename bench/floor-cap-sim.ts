/**
 * The cap on learned noise floors (MAX_FLOOR_FACTOR in src/core/compare/analysis/history-threshold.ts), by
 * seeded simulation through the real decision code: false alarms and power with the cap, against the same
 * floors uncapped, on honest histories of quiet and noisy runners and on histories someone who can write
 * to the results store made up.
 *
 * The model is bench/noise-floor-sim.ts's (multiplicative, lognormal): run noise σ 3% per measured run (half
 * shared by the arms of a round), a job offset of 2% per night or job, a build offset τ per build; a night
 * is the median of 5 runs of a new build in a new job; the floor is pgperf's (noiseFloorPct: Q3 + 1.5·IQR
 * over MIN_FLOOR_RUNS = 12 nights). A PR run: base and head built apart, one job, 10 paired rounds, head's
 * true effect as listed, threshold 2%, α 0.05, decided by analyse + decideRun.
 *
 * Histories: honest with τ 0%, 3%, 5%; "wild" (τ 20%: a runner nobody should gate on); "poisoned" (the
 * issue #40 probe: 14 nights alternating 1x and 0.5x TPS).
 *
 * "uncapped" is the same decision with the configured threshold raised to floor/5 for that run, so that
 * the cap (5x the threshold) never binds and the learned floor applies whole; only its "failed" column is
 * comparable (its pass threshold moved with it).
 *
 * Run: npx tsx bench/floor-cap-sim.ts [replicates]
 */
import { MAX_FLOOR_FACTOR } from '../src/core/compare/analysis/history-threshold.js';
import { noiseFloorPct } from '../src/core/stats/noise-floor.js';
import { seededRandom } from '../src/core/stats/seeded-random.js';
import { JOB, ROUNDS, SIGMA, decideFloorRun, nightlyMedians } from './lib/floor-ab-run.js';
import type { NoiseFloor } from '../src/core/results/result-types.js';
import { gaussian } from '../testkit/synthetic-run.js';

const REPLICATES = Number(process.argv[2] ?? 400);
const THRESHOLD = 2;
const NIGHTS = 14;
const EFFECTS = [0, -5, -10, -20, -50, -99];

interface History {
  name: string;
  /** The build offset of the PR run's builds (and of honest nights). */
  tau: number;
  /** Night k's level, or undefined for an honest night. */
  night?: (k: number) => number;
}

const HISTORIES: History[] = [
  { name: 'honest, τ 0%', tau: 0 },
  { name: 'honest, τ 3%', tau: 0.03 },
  { name: 'honest, τ 5%', tau: 0.05 },
  { name: 'wild, τ 20%', tau: 0.2 },
  { name: 'poisoned 1x/0.5x', tau: 0.03, night: (k) => (k % 2 === 0 ? 20_000 : 10_000) },
];

function simulate(seed: number, history: History, effectPct: number, capped: boolean) {
  const normal = gaussian(seededRandom(seed));
  const nights = nightlyMedians(NIGHTS, normal, history.tau, history.night);
  const floor = noiseFloorPct(nights);
  const noiseFloors: NoiseFloor[] = floor
    ? [
        {
          workload: 'select-only',
          clients: 1,
          metric: 'tps',
          floorPct: floor.floorPct,
          runs: NIGHTS,
          from: '2026-10-01',
          to: '2026-10-14',
        },
      ]
    : [];
  const thresholdPct =
    capped || !floor ? THRESHOLD : Math.max(THRESHOLD, Math.ceil(floor.floorPct / MAX_FLOOR_FACTOR));
  return {
    outcome: decideFloorRun(normal, { tau: history.tau, effectPct, thresholdPct, noiseFloors }),
    floorPct: floor?.floorPct ?? null,
  };
}

const pct = (n: number) => `${((100 * n) / REPLICATES).toFixed(1)}%`;
console.log(
  `floor-cap simulation: ${REPLICATES} runs per row; run noise ${100 * SIGMA}% (half round-shared), job offset ` +
    `${100 * JOB}%, ${NIGHTS} nights, ${ROUNDS} paired rounds, threshold ${THRESHOLD}%, cap ${MAX_FLOOR_FACTOR}x\n`,
);
console.log(
  '| history | effect | failed, capped | passed, capped | pending, capped | failed, uncapped | median floor |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const history of HISTORIES) {
  for (const effectPct of EFFECTS) {
    const seeds = Array.from({ length: REPLICATES }, (_, i) => 7919 * i + 13);
    const capped = seeds.map((s) => simulate(s, history, effectPct, true));
    const uncapped = seeds.map((s) => simulate(s, history, effectPct, false));
    const count = (runs: typeof capped, outcome: string) => runs.filter((r) => r.outcome === outcome).length;
    const floors = capped.flatMap((r) => (r.floorPct === null ? [] : [r.floorPct])).sort((a, b) => a - b);
    const floor = floors.length ? `${floors[Math.floor(floors.length / 2)]!.toFixed(1)}%` : '-';
    console.log(
      `| ${history.name} | ${effectPct}% | ${pct(count(capped, 'failed'))} | ${pct(count(capped, 'passed'))} | ` +
        `${pct(count(capped, 'pending'))} | ${pct(count(uncapped, 'failed'))} | ${floor} |`,
    );
  }
}
