/**
 * Memory as a steady cost (docs/steady-metrics.md#memory): what the server's backends hold privately while a
 * measured run runs, and what its sorts and hashes spill to temporary files.
 *
 * - Backend private memory: every client backend of the run is read from `/proc/<pid>/smaps_rollup` every
 *   `intervalMs` (src/postgres/memory/backend-memory-sampler.ts). The figure is `Anonymous`: the backend's
 *   anonymous pages (its heap, where palloc'd memory contexts live, its stack, written data pages). It leaves
 *   out shared memory, so shared buffers never count, however many a backend touched. `Private_Dirty` would
 *   not: a shared-buffer page that only one backend has mapped counts as that backend's private dirty page
 *   (a backend after a sequential scan of 16 MB: Private_Dirty 16,264 kB of which Pss_Shmem 15,859 kB,
 *   Anonymous 2,200 kB; test/fixtures/smaps-rollup). Per run: the peak (the largest reading of any backend)
 *   and the median per backend (each backend's median reading, then the median of those).
 * - Temporary files per transaction: `temp_bytes` and `temp_files` of pg_stat_database, read with the other
 *   counters (steady.ts), over the run's transactions.
 *
 * Pure: the metrics, the record a sample keeps and the summary of the readings; no I/O.
 */
import { median } from 'simple-statistics';
import type { MemoryContextsRecord } from './memory-contexts.js';

/** The memory metrics of a sample (entries of METRICS, spread there). Lower is better for all. */
export const MEMORY_METRICS = {
  backendMemoryPeakBytes: { label: 'backend memory peak', unit: 'bytes', better: 'lower' },
  backendMemoryMedianBytes: { label: 'backend memory median', unit: 'bytes', better: 'lower' },
  tempBytesPerTx: { label: 'temp bytes/tx', unit: 'bytes', better: 'lower' },
  tempFilesPerTx: { label: 'temp files/tx', unit: 'files', better: 'lower' },
} as const;

export type MemoryMetricName = keyof typeof MEMORY_METRICS;

/** Their names in a workload's `metrics` and `--metric` (entries of GATED_METRIC_NAMES). */
export const MEMORY_GATED_NAMES = {
  'memory-peak': 'backendMemoryPeakBytes',
  'memory-median': 'backendMemoryMedianBytes',
  'temp-bytes': 'tempBytesPerTx',
  'temp-files': 'tempFilesPerTx',
} as const satisfies Record<string, MemoryMetricName>;

/** Every memory metric, in report order. */
export const MEMORY_METRIC_NAMES = Object.keys(MEMORY_METRICS) as MemoryMetricName[];

/**
 * A memory metric counted in bytes: its values read as sizes ("1.87 MB") in the per-metric tables, not as
 * byte counts ("1957888.0").
 */
export function isMemoryBytes(metric: string): boolean {
  return metric in MEMORY_METRICS && MEMORY_METRICS[metric as MemoryMetricName].unit === 'bytes';
}

/** The smaps_rollup field pgperf takes as a backend's private memory (see the module comment). */
export const BACKEND_MEMORY_FIELD = 'Anonymous';

/** What a sample keeps of its backends' memory (`sample.memory`). */
export interface BackendMemoryRecord {
  /** Format version of this value. */
  version: 1;
  /** The smaps_rollup field read (BACKEND_MEMORY_FIELD). */
  field: string;
  /** Time between readings, ms. */
  intervalMs: number;
  /** Readings taken (each reads every client backend alive then). */
  ticks: number;
  /** Client backends read at least once. */
  backends: number;
  /** The largest reading of any backend, bytes; absent when none was read. */
  peakBytes?: number;
  /** The median over backends of each backend's median reading, bytes; absent when none was read. */
  medianBytes?: number;
  /** Why the memory was not recorded (e.g. smaps_rollup not readable by this user); absent when it was. */
  notRecorded?: string;
  /** The memory contexts of the largest backend, near the run's end (memory-contexts.ts); absent when not asked. */
  contexts?: MemoryContextsRecord;
}

/**
 * The record of one run's readings: per backend (pid) the bytes of every reading. With no reading, the
 * record says why (`why`, else "no client backend was seen").
 *
 * @example backendMemoryRecord(new Map([[1, [2e6, 3e6]], [2, [4e6]]]), 250, 8).peakBytes === 4e6
 */
export function backendMemoryRecord(
  readings: ReadonlyMap<number, readonly number[]>,
  intervalMs: number,
  ticks: number,
  why?: string,
): BackendMemoryRecord {
  const perBackend = [...readings.values()].filter((r) => r.length > 0);
  const base = { version: 1 as const, field: BACKEND_MEMORY_FIELD, intervalMs, ticks };
  if (perBackend.length === 0) {
    return { ...base, backends: 0, notRecorded: why ?? 'no client backend was seen during the run' };
  }
  return {
    ...base,
    backends: perBackend.length,
    peakBytes: Math.max(...perBackend.map((r) => Math.max(...r))),
    medianBytes: median(perBackend.map((r) => median([...r]))),
  };
}

/** The sample metrics of a memory record: peak and median, where recorded. */
export function backendMemoryMetrics(
  record: BackendMemoryRecord,
): Partial<Record<'backendMemoryPeakBytes' | 'backendMemoryMedianBytes', number>> {
  if (record.peakBytes === undefined || record.medianBytes === undefined) return {};
  return { backendMemoryPeakBytes: record.peakBytes, backendMemoryMedianBytes: record.medianBytes };
}
