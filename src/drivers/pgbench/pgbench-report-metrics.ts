/** Maps a parsed pgbench report onto the sample's metrics and counters. */
import type { MetricName } from '../../core/results/metrics.js';
import type { PgbenchReport } from './parse-report.js';

export function reportMetrics(r: PgbenchReport): Partial<Record<MetricName, number>> {
  const metrics: Partial<Record<MetricName, number>> = {};
  if (r.tps !== undefined) metrics.tps = r.tps;
  if (r.latencyAvgMs !== undefined) metrics.latencyAvgMs = r.latencyAvgMs;
  if (r.latencyStddevMs !== undefined) metrics.latencyStddevMs = r.latencyStddevMs;
  return metrics;
}

const COUNTERS = [
  'processed',
  'failed',
  'serializationFailures',
  'deadlockFailures',
  'retried',
  'totalRetries',
  'skipped',
  'late',
  'initialConnectionTimeMs',
] as const satisfies ReadonlyArray<keyof PgbenchReport>;

export function reportCounts(r: PgbenchReport): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of COUNTERS) {
    const value = r[key];
    if (typeof value === 'number') counts[key] = value;
  }
  return counts;
}
