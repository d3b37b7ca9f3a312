/**
 * What the diagnostics of one measured run hold: a plain, JSON-serialisable value stored with the
 * sample (`sample.diagnostics`), so reports can say *why* a cell changed (e.g. LWLock:BufferContent
 * falling with a B-tree root-page fix), not only that it did.
 */

export interface WaitEventCount {
  /** "Type:Event" as pg_stat_activity names it, "CPU:Running" for an active backend with no wait. */
  event: string;
  /** Backend observations with this event. */
  count: number;
  /** count / all observations, 0..1. */
  share: number;
}

export interface LockWaitCount {
  /** pg_locks.locktype and mode of ungranted locks, e.g. "transactionid ShareLock". */
  lock: string;
  /** Ungranted-lock observations over the lock samples. */
  count: number;
}

export interface RunDiagnostics {
  /** Format version of this value. */
  version: 1;
  /** server_version_num of the sampled server. */
  serverVersionNum: number;
  /** Requested sampling rate of pg_stat_activity. */
  hz: number;
  durationS: number;
  /** Samples taken, and ticks skipped because the previous sample was still running. */
  samples: number;
  missedTicks: number;
  /** Backend observations (one per other client backend per sample). */
  observations: number;
  /** Most frequent first. */
  waitEvents: WaitEventCount[];
  /** Ungranted locks in pg_locks, sampled at 1 Hz; most frequent first. */
  lockWaits: LockWaitCount[];
  /** Committed plus rolled-back transactions in the run's database (pg_stat_database delta). */
  transactions: number;
  /**
   * Counter deltas over the run, named "view.column": database.* (this database), wal.*, bgwriter.*,
   * checkpointer.*, io.* (pg_stat_io summed over backend types, objects and contexts).
   */
  counters: Record<string, number>;
  /** Views this server does not have, e.g. "pg_stat_io (PostgreSQL 16+)". */
  unavailable: string[];
}
