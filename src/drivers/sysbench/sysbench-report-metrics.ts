/** Maps a parsed sysbench report onto the sample's metrics, counters and progress series. */
import { histogramPercentile } from '../common/latency-histogram.js';
import type { MetricName } from '../../core/results/metrics.js';
import type { ProgressPoint } from '../../core/results/result-types.js';
import type { SysbenchInterval, SysbenchReport } from './parse-output.js';

export function reportMetrics(r: SysbenchReport): Partial<Record<MetricName, number>> {
  const metrics: Partial<Record<MetricName, number>> = {};
  if (r.tps !== undefined) metrics.tps = r.tps;
  if (r.qps !== undefined) metrics.qps = r.qps;
  if (r.latencyAvgMs !== undefined) metrics.latencyAvgMs = r.latencyAvgMs;
  if (r.latencyPctMs !== undefined) metrics.latencyPctMs = r.latencyPctMs;
  if (r.histogram) {
    const p95 = histogramPercentile(r.histogram, 0.95);
    const p99 = histogramPercentile(r.histogram, 0.99);
    if (p95 !== undefined) metrics.latencyP95Ms = p95;
    if (p99 !== undefined) metrics.latencyP99Ms = p99;
  }
  return metrics;
}

/** Counter name in the sample -> report field. */
const COUNTERS = {
  transactions: 'transactions',
  queries: 'queries',
  read: 'reads',
  write: 'writes',
  other: 'other',
  ignoredErrors: 'ignoredErrors',
  reconnects: 'reconnects',
  events: 'events',
  totalTimeS: 'totalTimeS',
  latencyMinMs: 'latencyMinMs',
  latencyMaxMs: 'latencyMaxMs',
  percentile: 'percentile',
} as const satisfies Record<string, keyof SysbenchReport>;

/** The report's counters, plus `errors`: the FATAL messages (errors sysbench did not ignore). */
export function reportCounts(r: SysbenchReport): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [name, key] of Object.entries(COUNTERS)) {
    const value = r[key];
    if (typeof value === 'number') counts[name] = value;
  }
  counts.errors = r.fatal.length;
  return counts;
}

/** An interval line as a progress point; its latency is the percentile, not an average. */
export function progressPoint(i: SysbenchInterval): ProgressPoint {
  return { t: i.t, tps: i.tps, qps: i.qps, latencyPctMs: i.latencyPctMs, ignoredErrorsPerS: i.errorsPerS };
}
