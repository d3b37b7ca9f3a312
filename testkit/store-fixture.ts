/**
 * Variants of the real fixture results document (test/fixtures/results/), for store tests that need
 * several distinct runs: another start time (hence another run id), commits, one workload only,
 * another kernel (hence another fingerprint).
 */
import { readFileSync } from 'node:fs';
import type { RunResult } from '../src/core/results/result-types.js';

export const FIXTURE_FILE = new URL(
  '../test/fixtures/results/pgperf-15-smoke-select-only.json',
  import.meta.url,
).pathname;

export function readFixture(): RunResult {
  return JSON.parse(readFileSync(FIXTURE_FILE, 'utf8')) as RunResult;
}

export interface Variant {
  /** ISO start time; the run id derives from it. */
  startedAt?: string;
  base?: { ref?: string; sha?: string };
  head?: { ref?: string; sha?: string };
  repository?: string;
  /** Keep only this workload's cells and samples. */
  onlyWorkload?: string;
  kernel?: string;
  status?: RunResult['status'];
}

export function fixtureVariant(base: RunResult, v: Variant): RunResult {
  const r = structuredClone(base);
  if (v.startedAt !== undefined) r.startedAt = v.startedAt;
  if (v.base || v.head || v.repository) {
    r.source = { repository: v.repository, base: v.base, head: v.head };
  }
  if (v.onlyWorkload !== undefined) {
    const w = v.onlyWorkload;
    r.plan.cells = r.plan.cells.filter((c) => c.workload === w);
    r.plan.executed = r.plan.executed.filter((e) => e.workload === w);
    r.samples = r.samples.filter((s) => s.workload === w);
    r.workloads = { [w]: r.workloads[w] };
  }
  if (v.kernel !== undefined) r.environment.kernel = v.kernel;
  if (v.status !== undefined) r.status = v.status;
  return r;
}

/** A start time `n` minutes after a fixed instant (distinct runs in a known order). */
export function minutesAfter(n: number): string {
  return new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString();
}
