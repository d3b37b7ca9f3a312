/**
 * The metrics a sample can carry, and which direction is better for each.
 * Drivers fill `Sample.metrics` with these keys; statistics and reports look the direction up here,
 * so one sign convention serves higher-is-better (throughput) and lower-is-better (latency) metrics.
 */
export const METRICS = {
  tps: { label: 'TPS', unit: 'tx/s', better: 'higher' },
  qps: { label: 'QPS', unit: 'queries/s', better: 'higher' },
  latencyAvgMs: { label: 'latency avg', unit: 'ms', better: 'lower' },
  latencyStddevMs: { label: 'latency stddev', unit: 'ms', better: 'lower' },
  latencyPctMs: { label: 'latency percentile', unit: 'ms', better: 'lower' },
} as const satisfies Record<string, MetricInfo>;

export interface MetricInfo {
  label: string;
  unit: string;
  better: 'higher' | 'lower';
}

export type MetricName = keyof typeof METRICS;

export const PRIMARY_METRIC: MetricName = 'tps';

export function isMetricName(name: string): name is MetricName {
  return Object.hasOwn(METRICS, name);
}
