/**
 * Seeded synthetic results documents for the comparison tests, the simulation and the benchmark: every
 * round runs each cell once per arm, values are level × effect × lognormal noise.
 */
import type { MetricName } from '../src/core/results/metrics.js';
import { RESULTS_SCHEMA_VERSION, type RunResult, type Sample } from '../src/core/results/result-types.js';
import { seededRandom } from '../src/core/stats/seeded-random.js';

export interface SyntheticRunOptions {
  seed: number;
  rounds: number;
  /** Arm labels; arms[0] is the baseline. */
  arms?: string[];
  /** Workload name → client counts. */
  workloads?: Record<string, number[]>;
  /** Run-to-run noise as a fraction (0.01 = 1% CV). */
  noise?: number;
  metric?: MetricName;
  /** Multiplicative effect of an arm on a cell in a round (1 = none). */
  effect?: (arm: string, workload: string, clients: number, round: number) => number;
  /** Noise-free value of a cell. */
  level?: (workload: string, clients: number) => number;
}

export const SWEEP_8 = [1, 2, 4, 8, 16, 32, 64, 128];

/**
 * Median TPS per client count of a curve with a real collapse: it peaks at 16 clients, drops about 30% at
 * 32-64 and recovers at 128 (the shape lock-contention regions give on many-core machines).
 */
export const COLLAPSE_DIP: Readonly<Record<number, number>> = {
  1: 20_000,
  2: 39_000,
  4: 76_000,
  8: 140_000,
  16: 200_000,
  32: 140_000,
  64: 135_000,
  128: 190_000,
};

export function syntheticRun(options: SyntheticRunOptions): RunResult {
  const {
    seed,
    rounds,
    arms = ['base', 'head'],
    workloads = { tpcb: SWEEP_8 },
    noise = 0.01,
    metric = 'tps',
    effect = () => 1,
    level = (_, clients) => 10_000 + 1000 * Math.log2(clients),
  } = options;
  const normal = gaussian(seededRandom(seed));
  const samples: Sample[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const [workload, clientCounts] of Object.entries(workloads)) {
      for (const clients of clientCounts) {
        for (const arm of arms) {
          const value =
            level(workload, clients) * effect(arm, workload, clients, round) * Math.exp(noise * normal());
          samples.push(sample({ round, workload, clients, arm, metrics: { [metric]: value } }));
        }
      }
    }
  }
  return document(arms, workloads, rounds, samples);
}

/** A results document around the given samples (only the fields the analysis reads are filled in). */
export function document(
  arms: string[],
  workloads: Record<string, number[]>,
  rounds: number,
  samples: Sample[],
  workloadSpecs: Record<string, unknown> = {},
): RunResult {
  return {
    schemaVersion: RESULTS_SCHEMA_VERSION,
    pgperfVersion: '0.1.0',
    status: 'complete',
    startedAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T01:00:00Z',
    environment: {
      hostname: 'synthetic',
      os: 'Debian GNU/Linux 12 (bookworm)',
      kernel: '6.1.0',
      arch: 'x64',
      cpuModel: 'synthetic CPU',
      cpuCount: 2,
      memoryBytes: 2 ** 34,
      facts: {},
      nodeVersion: 'v20.0.0',
      settingsHash: '0000000000000000',
    },
    clients: [{ tool: 'pgbench', binDir: '/opt/base/bin', version: 'pgbench (PostgreSQL) 18.6' }],
    arms: arms.map((label) => ({
      label,
      binDir: `/opt/${label}/bin`,
      serverVersion: 'test',
      settingOverrides: {},
    })),
    workloads: Object.fromEntries(
      Object.keys(workloads).map((w) => [w, { name: w, tool: 'pgbench', ...(workloadSpecs[w] ?? {}) }]),
    ),
    plan: {
      seed: 1,
      order: 'abba',
      rounds,
      cells: Object.entries(workloads).flatMap(([workload, cs]) =>
        cs.map((clients) => ({ workload, clients })),
      ),
      executed: [],
    },
    samples,
    warnings: [],
  } as unknown as RunResult;
}

export function sample(
  fields: Pick<Sample, 'round' | 'workload' | 'clients' | 'arm' | 'metrics'> & Partial<Sample>,
): Sample {
  return {
    attempt: 1,
    status: 'ok',
    startedAt: '2026-01-01T00:00:00Z',
    endedAt: '2026-01-01T00:01:00Z',
    randomSeed: 1,
    counts: {},
    progress: [],
    command: [],
    exitCode: 0,
    ...fields,
  };
}

/** Standard normal draws by the Box–Muller transform. */
export function gaussian(random: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/**
 * One workload "w" at 1 and 8 clients gating on TPS and p99, 12 rounds with 1% noise: `factor(clients)` is
 * head's multiplier of each metric (1: unchanged).
 */
export function tpsAndP99Run(
  factor: (clients: number) => { tps: number; p99: number },
  seed = 11,
): RunResult {
  const normal = gaussian(seededRandom(seed));
  const samples: Sample[] = [];
  for (let round = 1; round <= 12; round++) {
    for (const clients of [1, 8]) {
      for (const arm of ['base', 'head']) {
        const f = arm === 'head' ? factor(clients) : { tps: 1, p99: 1 };
        samples.push(
          sample({
            round,
            workload: 'w',
            clients,
            arm,
            metrics: {
              tps: 10_000 * f.tps * Math.exp(0.01 * normal()),
              latencyP99Ms: 5 * f.p99 * Math.exp(0.01 * normal()),
            },
          }),
        );
      }
    }
  }
  return document(['base', 'head'], { w: [1, 8] }, 12, samples, { w: { metrics: ['tps', 'p99'] } });
}
