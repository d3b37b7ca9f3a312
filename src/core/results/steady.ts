/**
 * Steady per-transaction metrics: what one transaction costs the server, from its cumulative counters read
 * right before and right after a measured run (src/postgres/stat-snapshot.ts reads them):
 *
 * - WAL bytes, WAL records and full-page images (pg_stat_wal, PostgreSQL 14+; WAL bytes from the insert
 *   position on older servers),
 * - shared-buffer hits and reads of the benchmark database (pg_stat_database blks_hit, blks_read), and the
 *   time spent reading (blk_read_time, only with track_io_timing on),
 * - read, write and extend operations on relations of the whole server (pg_stat_io, PostgreSQL 16+),
 * - backend CPU: user + system time of the postmaster's children (/proc), the live ones and the reaped ones.
 *
 * Divided by the transactions the client counted in that run. Unlike TPS these hardly move with machine
 * noise, so a change in them is a change in the code path (a patch that writes twice the WAL doubles
 * walBytesPerTx however busy the runner is). Pure: no I/O here.
 */
import type { MetricName, SteadyMetricName } from './metrics.js';

/** The cumulative counters one snapshot reads; absent where the server (or the OS) does not have them. */
export interface StatCounters {
  walBytes?: number;
  walRecords?: number;
  walFpi?: number;
  blksHit?: number;
  blksRead?: number;
  /** pg_stat_database.blk_read_time, in ms; absent when track_io_timing is off (it would read 0). */
  blkReadTimeMs?: number;
  /** pg_stat_io (16+), relations of every backend type: read, write and extend operations. */
  ioReads?: number;
  ioWrites?: number;
  ioExtends?: number;
  xactCommit?: number;
  xactRollback?: number;
  /** User + system CPU time of the server's processes (live children and reaped ones), in µs. */
  cpuUs?: number;
  /** pg_stat_database.temp_bytes and temp_files: what sorts and hashes beyond work_mem spilled (memory.ts). */
  tempBytes?: number;
  tempFiles?: number;
}

export type StatCounterName = keyof StatCounters;

/** The server's counters at one instant. */
export interface StatSnapshot {
  /** server_version_num of the server read. */
  serverVersionNum: number;
  /** When the snapshot was taken (ms since the epoch). */
  takenAtMs: number;
  counters: StatCounters;
  /** Sources the server or the OS lacked, e.g. "pg_stat_wal (PostgreSQL 14+)"; their counters are absent. */
  unavailable: string[];
}

/** What a sample keeps of its snapshots (`sample.steady`): the deltas and the denominator, for re-analysis. */
export interface SteadyRecord {
  /** Format version of this value. */
  version: 1;
  /** Transactions the client counted in the run (the denominator of every per-transaction metric). */
  transactions: number;
  /** Seconds between the two snapshots. */
  elapsedS: number;
  /** Counter deltas over the run (after − before). */
  deltas: StatCounters;
  /** Sources that were not available (see StatSnapshot.unavailable) or whose delta was unusable. */
  unavailable: string[];
  /** The run started cold (workload `coldStart`); absent for runs that started with the buffers as they were. */
  cold?: ColdStart;
}

/** How a cold-start run began: the server restarted (shared buffers empty), and the OS page cache? */
export interface ColdStart {
  /** The server was restarted right before the run. */
  restarted: true;
  /** The OS page cache was dropped (/proc/sys/vm/drop_caches); false where pgperf may not (not root). */
  pageCacheDropped: boolean;
}

/** Which delta each counter-based steady metric divides by the transactions (backend memory is not one). */
export const STEADY_METRIC_SOURCES: Partial<Record<SteadyMetricName, StatCounterName>> = {
  walBytesPerTx: 'walBytes',
  walRecordsPerTx: 'walRecords',
  walFpiPerTx: 'walFpi',
  bufferHitsPerTx: 'blksHit',
  bufferReadsPerTx: 'blksRead',
  readTimeMsPerTx: 'blkReadTimeMs',
  ioReadsPerTx: 'ioReads',
  backendCpuUsPerTx: 'cpuUs',
  tempBytesPerTx: 'tempBytes',
  tempFilesPerTx: 'tempFiles',
};

/**
 * The counter deltas between two snapshots of one server. A counter missing from either side is left out;
 * one that went backwards (a stats reset, a server restart in between) is left out and named in
 * `unusable`, never reported as a negative cost.
 */
export function statDeltas(
  before: StatSnapshot,
  after: StatSnapshot,
): { deltas: StatCounters; unusable: StatCounterName[] } {
  const deltas: StatCounters = {};
  const unusable: StatCounterName[] = [];
  for (const key of Object.keys(after.counters) as StatCounterName[]) {
    const a = after.counters[key];
    const b = before.counters[key];
    if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b)) continue;
    if (a < b) unusable.push(key);
    else deltas[key] = a - b;
  }
  return { deltas, unusable };
}

/** The per-transaction metrics of counter deltas over `transactions` (none when there were none). */
export function perTransactionMetrics(
  deltas: StatCounters,
  transactions: number,
): Partial<Record<MetricName, number>> {
  const metrics: Partial<Record<MetricName, number>> = {};
  if (!(Number.isFinite(transactions) && transactions > 0)) return metrics;
  for (const [metric, source] of Object.entries(STEADY_METRIC_SOURCES) as Array<
    [SteadyMetricName, StatCounterName]
  >) {
    const delta = deltas[source];
    if (delta !== undefined) metrics[metric] = delta / transactions;
  }
  return metrics;
}

/**
 * The transactions a run's client counted: pgbench's processed (successful) transactions, sysbench's
 * transactions; undefined when the report has neither.
 */
export function clientTransactions(counts: Readonly<Record<string, number>>): number | undefined {
  const n = counts.processed ?? counts.transactions;
  return n !== undefined && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * The whole step for one run: deltas, the record kept with the sample, and the per-transaction metrics.
 * Undefined when the client counted no transactions (nothing to divide by).
 */
export function steadyOutcome(
  before: StatSnapshot,
  after: StatSnapshot,
  transactions: number | undefined,
): { record: SteadyRecord; metrics: Partial<Record<MetricName, number>> } | undefined {
  if (transactions === undefined || !(transactions > 0)) return undefined;
  const { deltas, unusable } = statDeltas(before, after);
  const unavailable = [
    ...new Set([
      ...before.unavailable,
      ...after.unavailable,
      ...unusable.map((k) => `${k} (the counter went backwards: reset or restart)`),
    ]),
  ];
  return {
    record: {
      version: 1,
      transactions,
      elapsedS: Math.max(0, (after.takenAtMs - before.takenAtMs) / 1000),
      deltas,
      unavailable,
    },
    metrics: perTransactionMetrics(deltas, transactions),
  };
}
