/**
 * The captured real runs of test/fixtures/noisy-runner (see its README): parsed rows, and a results document
 * built from one session's rounds so the real compare code can analyse them.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RunResult, Sample } from '../src/core/results/result-types.js';
import { document, sample } from './synthetic-run.js';

export interface NoisyRun {
  session: number;
  round: number;
  clients: number;
  arm: string;
  startedAt: string;
  tps: number;
  latencyAvgMs: number;
  /** Per-second TPS, first second first. */
  progress: number[];
}

const FILE = fileURLToPath(new URL('../test/fixtures/noisy-runner/runs.csv', import.meta.url));

export function noisyRunnerRuns(): NoisyRun[] {
  const [header, ...lines] = readFileSync(FILE, 'utf8').trim().split(/\r?\n/);
  if (header !== 'session,round,clients,arm,started,tps,latency_avg_ms,progress_tps') {
    throw new Error(`unexpected header in ${FILE}: ${header}`);
  }
  return lines.map((line) => {
    const [session, round, clients, arm, startedAt, tps, latency, progress] = line.split(',');
    return {
      session: Number(session),
      round: Number(round),
      clients: Number(clients),
      arm: arm!,
      startedAt: startedAt!,
      tps: Number(tps),
      latencyAvgMs: Number(latency),
      progress: progress!.trim().split(/\s+/).map(Number),
    };
  });
}

/** A run as a results-document sample (workload 'select-only'). */
export function noisySample(run: NoisyRun, overrides: Partial<Sample> = {}): Sample {
  return sample({
    round: run.round,
    workload: 'select-only',
    clients: run.clients,
    arm: run.arm,
    startedAt: run.startedAt,
    metrics: { tps: run.tps, latencyAvgMs: run.latencyAvgMs },
    progress: run.progress.map((tps, i) => ({ t: i + 1, tps })),
    ...overrides,
  });
}

/** Session 1 (base vs base-rebuilt, an A/A pair) as a results document. */
export function noisyRunnerSession1(): RunResult {
  const runs = noisyRunnerRuns().filter((r) => r.session === 1);
  return document(
    ['base', 'base-rebuilt'],
    { 'select-only': [1, 2] },
    10,
    runs.map((r) => noisySample(r)),
  );
}
