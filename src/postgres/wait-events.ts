/**
 * Diagnostics during a measured run, over one extra connection:
 *
 * - wait events: pg_stat_activity of the other client backends of the run's database, sampled at
 *   `hz` (default 10). Each sample counts one observation per backend under "Type:Event"; an active
 *   backend without a wait is "CPU:Running". Shares of observations approximate the share of backend
 *   time spent in each state.
 * - lock waits: ungranted pg_locks by locktype and mode, sampled once a second.
 * - counters: deltas between start and stop of pg_stat_database (this database), pg_stat_wal (14+),
 *   pg_stat_bgwriter, pg_stat_checkpointer (17+) and pg_stat_io (16+, summed). Views the server lacks
 *   are listed in `unavailable` and simply absent from the counters (the documented fallback for old
 *   servers); columns are read generically, so renamed or moved columns (PG17 moved checkpoints out of
 *   pg_stat_bgwriter, PG18 WAL I/O timings into pg_stat_io) show under their new names.
 *
 * A sample never overlaps the previous one: a tick that finds it still running is counted as missed.
 * Counters are flushed by backends at transaction end and at most once a second when idle (PG15+),
 * so very short runs can under-count the last second.
 */
import type { LockWaitCount, RunDiagnostics, WaitEventCount } from '../core/results/diagnostics.js';
import { openSideConnection } from './cluster/side-connection.js';

export interface DiagnosticsTarget {
  /** Unix-socket directory or host name. */
  host: string;
  port: number;
  user: string;
  database: string;
}

export interface DiagnosticsOptions {
  /** pg_stat_activity samples per second (default 10). */
  hz?: number;
}

export interface RunningDiagnostics {
  /** Stops sampling, reads the counters again and closes the connection. */
  stop(): Promise<RunDiagnostics>;
}

export const DIAGNOSTICS_APPLICATION_NAME = 'pgperf-diagnostics';
const LOCK_SAMPLE_INTERVAL_MS = 1000;

export const ACTIVITY_SQL = `
SELECT coalesce(wait_event_type, CASE WHEN state = 'active' THEN 'CPU' ELSE 'Unknown' END) AS type,
       coalesce(wait_event, CASE WHEN state = 'active' THEN 'Running' ELSE coalesce(state, 'unknown') END) AS event
  FROM pg_stat_activity
 WHERE pid <> pg_backend_pid() AND backend_type = 'client backend' AND datname = current_database()`;

const LOCKS_SQL = `
SELECT locktype || ' ' || mode AS lock, count(*)::int AS n
  FROM pg_locks WHERE NOT granted GROUP BY 1`;

interface CounterView {
  prefix: string;
  view: string;
  minVersion: number;
  /** SQL returning one jsonb column "j" with the numeric counters. */
  sql: string;
}

const COUNTER_VIEWS: CounterView[] = [
  {
    prefix: 'database',
    view: 'pg_stat_database',
    minVersion: 0,
    sql: 'SELECT to_jsonb(d) AS j FROM pg_stat_database d WHERE datname = current_database()',
  },
  {
    prefix: 'wal',
    view: 'pg_stat_wal',
    minVersion: 140000,
    sql: 'SELECT to_jsonb(w) AS j FROM pg_stat_wal w',
  },
  {
    prefix: 'bgwriter',
    view: 'pg_stat_bgwriter',
    minVersion: 0,
    sql: 'SELECT to_jsonb(b) AS j FROM pg_stat_bgwriter b',
  },
  {
    prefix: 'checkpointer',
    view: 'pg_stat_checkpointer',
    minVersion: 170000,
    sql: 'SELECT to_jsonb(c) AS j FROM pg_stat_checkpointer c',
  },
  {
    prefix: 'io',
    view: 'pg_stat_io',
    minVersion: 160000,
    // Summed over backend types, objects and contexts: one number per operation.
    sql: `SELECT jsonb_object_agg(key, total) AS j FROM (
            SELECT key, sum(value::numeric) AS total
              FROM pg_stat_io, jsonb_each_text(to_jsonb(pg_stat_io))
             WHERE jsonb_typeof(to_jsonb(pg_stat_io) -> key) = 'number'
             GROUP BY key) s`,
  },
];

const VIEW_VERSION_NAMES: Record<string, string> = {
  pg_stat_wal: 'PostgreSQL 14+',
  pg_stat_checkpointer: 'PostgreSQL 17+',
  pg_stat_io: 'PostgreSQL 16+',
};

/** Connects and starts sampling; the caller must stop() it (also on errors). */
export async function startDiagnostics(
  target: DiagnosticsTarget,
  options: DiagnosticsOptions = {},
): Promise<RunningDiagnostics> {
  const hz = options.hz ?? 10;
  if (!(hz > 0 && hz <= 100)) throw new Error(`diagnostics: hz must be in (0, 100], got ${hz}`);
  // A lost connection is reported by stop(), never as an unhandled 'error' event.
  let failure: unknown;
  const client = await openSideConnection(target, DIAGNOSTICS_APPLICATION_NAME, {
    onError: (e) => {
      failure ??= e;
    },
  });
  try {
    const versionNum = Number(
      (await client.query<{ v: string }>('SELECT current_setting($1) AS v', ['server_version_num'])).rows[0]!
        .v,
    );
    const views = COUNTER_VIEWS.filter((v) => versionNum >= v.minVersion);
    const unavailable = COUNTER_VIEWS.filter((v) => versionNum < v.minVersion).map(
      (v) => `${v.view} (${VIEW_VERSION_NAMES[v.view] ?? 'newer PostgreSQL'})`,
    );
    const readCounters = async () => {
      const out: Record<string, number> = {};
      for (const v of views) {
        const row = (await client.query<{ j: Record<string, unknown> | null }>(v.sql)).rows[0];
        for (const [key, value] of Object.entries(row?.j ?? {})) {
          const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
          if (Number.isFinite(n) && !/(^|_)(oid|pid)$|^datid$/.test(key)) out[`${v.prefix}.${key}`] = n;
        }
      }
      return out;
    };

    const before = await readCounters();
    const started = Date.now();
    const events = new Map<string, number>();
    const locks = new Map<string, number>();
    let samples = 0;
    let missedTicks = 0;
    let observations = 0;
    let busy: Promise<void> | undefined;
    let lastLockSample = 0;

    const sample = async () => {
      const rows = (await client.query<{ type: string; event: string }>(ACTIVITY_SQL)).rows;
      samples++;
      for (const r of rows) {
        const key = `${r.type}:${r.event}`;
        events.set(key, (events.get(key) ?? 0) + 1);
        observations++;
      }
      if (Date.now() - lastLockSample >= LOCK_SAMPLE_INTERVAL_MS) {
        lastLockSample = Date.now();
        for (const r of (await client.query<{ lock: string; n: number }>(LOCKS_SQL)).rows) {
          locks.set(r.lock, (locks.get(r.lock) ?? 0) + r.n);
        }
      }
    };
    const timer = setInterval(() => {
      if (busy) {
        missedTicks++;
        return;
      }
      busy = sample()
        .catch((e: unknown) => {
          failure ??= e;
        })
        .finally(() => {
          busy = undefined;
        });
    }, 1000 / hz);

    let stopped: Promise<RunDiagnostics> | undefined;
    return {
      stop() {
        stopped ??= (async () => {
          clearInterval(timer);
          try {
            await busy;
            if (failure) throw failure;
            const after = await readCounters();
            const counters: Record<string, number> = {};
            for (const [key, value] of Object.entries(after)) {
              const was = before[key];
              if (was !== undefined) counters[key] = value - was;
            }
            return {
              version: 1,
              serverVersionNum: versionNum,
              hz,
              durationS: (Date.now() - started) / 1000,
              samples,
              missedTicks,
              observations,
              waitEvents: shares(events, observations),
              lockWaits: [...locks.entries()]
                .map(([lock, count]): LockWaitCount => ({ lock, count }))
                .sort((a, b) => b.count - a.count || a.lock.localeCompare(b.lock)),
              transactions:
                (counters['database.xact_commit'] ?? 0) + (counters['database.xact_rollback'] ?? 0),
              counters,
              unavailable,
            };
          } finally {
            await client.end().catch(() => {});
          }
        })();
        return stopped;
      },
    };
  } catch (e) {
    await client.end().catch(() => {});
    throw e;
  }
}

function shares(counts: Map<string, number>, total: number): WaitEventCount[] {
  return [...counts.entries()]
    .map(([event, count]) => ({ event, count, share: total > 0 ? count / total : 0 }))
    .sort((a, b) => b.count - a.count || a.event.localeCompare(b.event));
}
