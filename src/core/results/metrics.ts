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
  latencyP95Ms: { label: 'latency p95', unit: 'ms', better: 'lower' },
  latencyP99Ms: { label: 'latency p99', unit: 'ms', better: 'lower' },
  // Steady per-transaction costs: server counter deltas over the measured run / its transactions
  // (src/core/results/steady.ts). Recorded in every run; they gate only where asked (metrics:, --metric).
  walBytesPerTx: { label: 'WAL bytes/tx', unit: 'bytes', better: 'lower' },
  walRecordsPerTx: { label: 'WAL records/tx', unit: 'records', better: 'lower' },
  walFpiPerTx: { label: 'full-page images/tx', unit: 'FPIs', better: 'lower' },
  bufferHitsPerTx: { label: 'buffer hits/tx', unit: 'blocks', better: 'lower' },
  bufferReadsPerTx: { label: 'buffer reads/tx', unit: 'blocks', better: 'lower' },
  backendCpuUsPerTx: { label: 'backend CPU/tx', unit: 'µs', better: 'lower' },
  // CPU instructions of the backends per transaction, from the instruction mode's own short runs
  // (src/core/results/instructions.ts); judged by its own rule (src/core/compare/instruction-verdict.ts).
  instructions: { label: 'instr/tx', unit: 'instructions', better: 'lower' },
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

/**
 * The names a workload's `metrics` field gates on (and `--metric` accepts besides the keys above), mapped to
 * the sample metric each one compares.
 */
export const GATED_METRIC_NAMES = {
  tps: 'tps',
  'latency-avg': 'latencyAvgMs',
  p95: 'latencyP95Ms',
  p99: 'latencyP99Ms',
  'wal-bytes': 'walBytesPerTx',
  'wal-records': 'walRecordsPerTx',
  'wal-fpi': 'walFpiPerTx',
  'buffer-hits': 'bufferHitsPerTx',
  'buffer-reads': 'bufferReadsPerTx',
  'backend-cpu': 'backendCpuUsPerTx',
} as const satisfies Record<string, MetricName>;

export type GatedMetricName = keyof typeof GATED_METRIC_NAMES;

/** The steady per-transaction metrics, recorded beside TPS in every measured run of every tool. */
export const STEADY_METRICS = [
  'walBytesPerTx',
  'walRecordsPerTx',
  'walFpiPerTx',
  'bufferHitsPerTx',
  'bufferReadsPerTx',
  'backendCpuUsPerTx',
] as const satisfies readonly MetricName[];

export type SteadyMetricName = (typeof STEADY_METRICS)[number];

export const DEFAULT_GATED_METRICS: readonly GatedMetricName[] = ['tps'];

/** The metric a gated name (or a metric key) stands for; undefined for anything else. */
export function metricFromName(name: string): MetricName | undefined {
  if (Object.hasOwn(GATED_METRIC_NAMES, name)) return GATED_METRIC_NAMES[name as GatedMetricName];
  return isMetricName(name) ? name : undefined;
}

/** The short name of a metric where it has one (p99 for latencyP99Ms), else its key. */
export function gatedName(metric: MetricName): string {
  return Object.entries(GATED_METRIC_NAMES).find(([, m]) => m === metric)?.[0] ?? metric;
}
