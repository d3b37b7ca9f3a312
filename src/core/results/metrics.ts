import { MEMORY_GATED_NAMES, MEMORY_METRICS, MEMORY_METRIC_NAMES } from './memory.js';

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
  // Time spent reading blocks (pg_stat_database.blk_read_time: only with track_io_timing on) and the read
  // operations of relations (pg_stat_io, 16+: one operation may read several blocks on 17+).
  readTimeMsPerTx: { label: 'read time/tx', unit: 'ms', better: 'lower' },
  ioReadsPerTx: { label: 'I/O reads/tx', unit: 'reads', better: 'lower' },
  backendCpuUsPerTx: { label: 'backend CPU/tx', unit: 'µs', better: 'lower' },
  // Backend private memory (per run) and temp files per transaction (src/core/results/memory.ts).
  ...MEMORY_METRICS,
  // CPU instructions of the backends per transaction, from the instruction mode's own short runs
  // (src/core/results/instructions.ts); judged by its own rule (src/core/compare/analysis/instruction-verdict.ts).
  instructions: { label: 'instr/tx', unit: 'instructions', better: 'lower' },
} as const satisfies Record<string, MetricInfo>;

export interface MetricInfo {
  label: string;
  unit: string;
  better: 'higher' | 'lower';
}

export type MetricName = keyof typeof METRICS;

/**
 * The values a metric can take in a sample, for the readers of results documents (check-results.ts): a
 * value outside is no measurement (a hand-edited, corrupted or forged file) and is refused before it
 * reaches a ratio or a report (a TPS of 1e308 printed as a change of +7.4e+153%). The bounds are generous:
 * they refuse what no run can produce, never an unusual run. A failed sample's metrics may also be 0 (a run
 * that processed nothing reads 0 TPS).
 */
export interface PlausibleRange {
  /** The least value; excluded when `minExcluded` (a rate or latency of a successful run is above 0). */
  min: number;
  minExcluded: boolean;
  /** The largest value (included). */
  max: number;
  /** Why the bounds are where they are (said in the refusal; docs/cli.md lists them). */
  why: string;
}

/** Rates of successful runs: above 0; 1e9/s is hundreds of times what any server reaches today. */
const RATE = {
  min: 0,
  minExcluded: true,
  max: 1e9,
  why: 'a rate of a run that processed transactions: above 0, at most 1e9/s',
};
/**
 * Latencies in ms: above 0; a transaction cannot outlast the longest run (a duration of at most
 * DURATION_S.max s, src/core/bounds.ts), so 1e8 ms (27.8 h) is beyond any.
 */
const LATENCY = {
  min: 0,
  minExcluded: true,
  max: 1e8,
  why: 'a latency of a run: above 0, at most 1e8 ms (longer than the longest run)',
};
/** Per-transaction costs: counter deltas divided by transactions (steady.ts), never negative, some 0. */
const COST = {
  min: 0,
  minExcluded: false,
  max: 1e15,
  why: 'a cost per transaction: 0 or more, at most 1e15',
};

export const PLAUSIBLE: { readonly [M in MetricName]: PlausibleRange } = {
  tps: RATE,
  qps: { ...RATE, max: 1e10, why: 'a rate of a run that processed queries: above 0, at most 1e10/s' },
  latencyAvgMs: LATENCY,
  // Rounded to the microsecond by pgbench: a spread can read 0.
  latencyStddevMs: {
    ...LATENCY,
    minExcluded: false,
    why: 'a spread of latencies: 0 or more, at most 1e8 ms',
  },
  latencyPctMs: LATENCY,
  latencyP95Ms: LATENCY,
  latencyP99Ms: LATENCY,
  walBytesPerTx: COST,
  walRecordsPerTx: COST,
  walFpiPerTx: COST,
  bufferHitsPerTx: COST,
  bufferReadsPerTx: COST,
  readTimeMsPerTx: COST,
  ioReadsPerTx: COST,
  backendCpuUsPerTx: COST,
  tempBytesPerTx: COST,
  tempFilesPerTx: COST,
  // Bytes a backend holds: 0 or more, at most 1 PiB.
  backendMemoryPeakBytes: { ...COST, max: 2 ** 50, why: 'a backend memory size: 0 or more, at most 1 PiB' },
  backendMemoryMedianBytes: { ...COST, max: 2 ** 50, why: 'a backend memory size: 0 or more, at most 1 PiB' },
  instructions: { ...COST, minExcluded: true, why: 'instructions per transaction: above 0, at most 1e15' },
};

/**
 * Why `value` cannot be `metric` of a sample with this status, or undefined when it can.
 * @example metricValueProblem('tps', 1e308, 'ok') === 'expected a rate of a run that processed transactions: above 0, at most 1e9/s'
 */
export function metricValueProblem(
  metric: MetricName,
  value: number,
  status: 'ok' | 'failed',
): string | undefined {
  const range = PLAUSIBLE[metric];
  const excluded = range.minExcluded && status === 'ok';
  const tooLow = excluded ? !(value > range.min) : !(value >= range.min);
  if (!Number.isFinite(value) || tooLow || value > range.max) {
    return `expected ${range.why}${status === 'failed' && range.minExcluded ? ' (or 0, in a failed run)' : ''}`;
  }
  return undefined;
}

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
  'read-time': 'readTimeMsPerTx',
  'io-reads': 'ioReadsPerTx',
  'backend-cpu': 'backendCpuUsPerTx',
  ...MEMORY_GATED_NAMES,
} as const satisfies Record<string, MetricName>;

export type GatedMetricName = keyof typeof GATED_METRIC_NAMES;

/** The steady per-transaction metrics, recorded beside TPS in every measured run of every tool. */
export const STEADY_METRICS = [
  'walBytesPerTx',
  'walRecordsPerTx',
  'walFpiPerTx',
  'bufferHitsPerTx',
  'bufferReadsPerTx',
  'readTimeMsPerTx',
  'ioReadsPerTx',
  'backendCpuUsPerTx',
  ...MEMORY_METRIC_NAMES,
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
