/**
 * A nightly history of results documents built from the real pgbench runs captured on a noisy runner
 * (test/fixtures/history/noisy-runner-runs.csv), with a planted slowdown: see test/fixtures/history/README.md.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { HistoryRun } from '../../../src/core/history/series.js';
import {
  RESULTS_SCHEMA_VERSION,
  type AnswerCost,
  type Sample,
} from '../../../src/core/results/result-types.js';
import { seededRandom } from '../../../src/core/stats/seeded-random.js';

export const WORKLOAD = 'select-only';

interface CapturedRun {
  session: number;
  clients: number;
  tps: number;
  latencyAvgMs: number;
}

export function capturedRuns(): CapturedRun[] {
  const text = readFileSync(new URL('../../fixtures/history/noisy-runner-runs.csv', import.meta.url), 'utf8');
  const [header, ...lines] = text.trim().split('\n');
  const columns = header!.split(',');
  return lines.map((line) => {
    const cells = line.split(',');
    const get = (name: string) => cells[columns.indexOf(name)]!;
    return {
      session: Number(get('session')),
      clients: Number(get('clients')),
      tps: Number(get('tps')),
      latencyAvgMs: Number(get('latency_avg_ms')),
    };
  });
}

export function commitSha(night: number): string {
  return createHash('sha1').update(`pgperf history fixture commit ${night}`).digest('hex');
}

export interface NoisyHistoryOptions {
  nights?: number;
  /** First night of the slower regime; Infinity for none. */
  stepAt?: number;
  /** TPS factor from stepAt on. */
  factor?: number;
  runsPerNight?: number;
  clients?: readonly number[];
  /** When night k's run starts; default 2026-10-01 + k days, 02:00 UTC. */
  startedAt?: (night: number) => Date;
  /** The first night whose run records what its answer cost (nightCost); default none does. */
  costFrom?: number;
}

/**
 * What night k's answer cost: a build every third night (a cache miss, 10 minutes), else a cache hit;
 * counted runs and timed rounds that vary a little; 3 s of checks and analysis.
 */
export function nightCost(night: number): AnswerCost {
  const buildS = night % 3 === 0 ? 600 : 2;
  const countedS = 40 + (night % 5);
  const timedS = 90 + 5 * (night % 4);
  return { buildS, countedS, timedRounds: 5, timedS, wallS: buildS + countedS + timedS + 3 };
}

export function noisyHistory(options: NoisyHistoryOptions = {}): HistoryRun[] {
  const {
    nights = 40,
    stepAt = 26,
    factor = 0.8,
    runsPerNight = 5,
    clients = [1, 2],
    startedAt: at = (night: number) => new Date(Date.UTC(2026, 9, 1 + night, 2, 0, 0)),
    costFrom = Infinity,
  } = options;
  const pool = capturedRuns().filter((r) => r.session === 2);
  const facts = {
    cpuModel: 'AMD EPYC (KVM guest)',
    cpuCount: '2',
    kernel: '6.18',
    os: 'Debian GNU/Linux 12 (bookworm)',
    cpuidleDriver: 'haltpoll',
    settingsHash: 'fixture',
  };
  return Array.from({ length: nights }, (_, night): HistoryRun => {
    const random = seededRandom(20261123 + night);
    const f = night >= stepAt ? factor : 1;
    const startedAt = at(night).toISOString();
    const samples: Sample[] = [];
    for (let round = 1; round <= runsPerNight; round++) {
      for (const c of clients) {
        const choices = pool.filter((r) => r.clients === c);
        const drawn = choices[Math.floor(random() * choices.length)]!;
        samples.push({
          round,
          workload: WORKLOAD,
          clients: c,
          arm: 'head',
          attempt: 1,
          status: 'ok',
          startedAt,
          endedAt: startedAt,
          randomSeed: round,
          metrics: { tps: drawn.tps * f, latencyAvgMs: drawn.latencyAvgMs / f },
          counts: {},
          progress: [],
          command: [
            'pgbench',
            '-b',
            'select-only',
            '-M',
            'prepared',
            '-c',
            String(c),
            '-j',
            String(c),
            '-T',
            '8',
          ],
          exitCode: 0,
        });
      }
    }
    return {
      schemaVersion: RESULTS_SCHEMA_VERSION,
      pgperfVersion: '0.0.0-fixture',
      runId: `night-${String(night).padStart(3, '0')}`,
      fingerprint: { id: 'kvm2-haltpoll-fx', facts },
      status: 'complete',
      startedAt,
      updatedAt: startedAt,
      environment: {
        hostname: 'noisy-runner',
        os: facts.os,
        kernel: facts.kernel,
        arch: 'x64',
        cpuModel: facts.cpuModel,
        cpuCount: 2,
        memoryBytes: 4 * 1024 ** 3,
        facts: {},
        nodeVersion: 'v20',
        settingsHash: facts.settingsHash,
      },
      arms: [
        {
          label: 'head',
          binDir: '/opt/pg/bin',
          serverVersion: 'postgres (PostgreSQL) 18.6',
          settingOverrides: {},
        },
      ],
      clients: [{ tool: 'pgbench', binDir: '/opt/pg/bin', version: 'pgbench (PostgreSQL) 18.6' }],
      workloads: {},
      plan: {
        seed: night,
        order: 'random',
        rounds: runsPerNight,
        cells: clients.map((c) => ({ workload: WORKLOAD, clients: c })),
        executed: [],
      },
      source: { repository: 'postgres/postgres', head: { ref: 'master', sha: commitSha(night) } },
      samples,
      warnings: [],
      ...(night >= costFrom ? { cost: nightCost(night) } : {}),
    };
  });
}
