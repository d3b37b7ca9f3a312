/**
 * The private memory of a measured run's backends, sampled while it runs (src/core/results/memory.ts says
 * what the figure is). Over one extra connection the sampler lists the run's client backends
 * (pg_stat_activity: client backends of the benchmark database, not its own nor pgperf's other connections,
 * whose application_name starts with "pgperf-") every `intervalMs`, and reads each one's
 * `/proc/<pid>/smaps_rollup`. A tick that finds the previous one still running is skipped.
 *
 * Reading another user's smaps_rollup needs privileges (root, or the server's own user): where this process
 * may not, the memory is not recorded and the record says why; that never fails the run.
 */
import {
  backendMemoryRecord,
  BACKEND_MEMORY_FIELD,
  type BackendMemoryRecord,
} from '../../core/results/memory.js';
import { errorMessage } from '../../core/util/errors.js';
import { openSideConnection } from '../cluster/side-connection.js';
import type { Connection } from '../cluster/cluster.js';
import { readSmapsField } from './smaps-rollup.js';

export const MEMORY_APPLICATION_NAME = 'pgperf-memory';

/** Readings four times a second: a backend's memory is read often enough to see a query's peak of 1 s. */
export const DEFAULT_MEMORY_INTERVAL_MS = 250;

/**
 * The benchmark database's client backends, asked from the `postgres` database: the sampler's own
 * transactions (four a second) then count in that database's pg_stat_database row, not in the benchmark's,
 * whose commits and buffer counters the steady metrics read.
 */
const BACKENDS_SQL = `
SELECT pid FROM pg_stat_activity
 WHERE backend_type = 'client backend' AND datname = $1 AND pid <> pg_backend_pid()
   AND coalesce(application_name, '') NOT LIKE 'pgperf-%'`;
const SAMPLER_DATABASE = 'postgres';

export interface MemorySamplerOptions {
  intervalMs?: number;
  /** Where /proc is (tests). */
  procRoot?: string;
}

export interface RunningMemorySampler {
  /** Stops sampling, closes the connection and summarises the readings. Never throws. */
  stop(): Promise<BackendMemoryRecord>;
}

/** Connects and starts sampling; throws when it cannot connect. The caller must stop() it. */
export async function startMemorySampler(
  target: Connection,
  options: MemorySamplerOptions = {},
): Promise<RunningMemorySampler> {
  const intervalMs = options.intervalMs ?? DEFAULT_MEMORY_INTERVAL_MS;
  const proc = options.procRoot ?? '/proc';
  let failure: string | undefined;
  const client = await openSideConnection(
    { ...target, database: SAMPLER_DATABASE },
    MEMORY_APPLICATION_NAME,
    {
      onError: (e) => {
        failure ??= `the sampler's connection failed: ${errorMessage(e)}`;
      },
    },
  );
  const readings = new Map<number, number[]>();
  let ticks = 0;
  let busy: Promise<void> | undefined;

  const tick = async () => {
    const pids = (await client.query<{ pid: number }>(BACKENDS_SQL, [target.database])).rows.map(
      (r) => r.pid,
    );
    ticks++;
    for (const pid of pids) {
      const r = await readSmapsField(proc, pid, BACKEND_MEMORY_FIELD);
      if (r.kind === 'unreadable') {
        failure ??= r.reason;
        return;
      }
      if (r.kind === 'read') {
        const list = readings.get(pid);
        if (list) list.push(r.bytes);
        else readings.set(pid, [r.bytes]);
      }
    }
  };
  const timer = setInterval(() => {
    if (busy || failure) return;
    busy = tick()
      .catch((e: unknown) => {
        failure ??= `reading the backends failed: ${errorMessage(e)}`;
      })
      .finally(() => {
        busy = undefined;
      });
  }, intervalMs);
  // A first reading at once: a run shorter than one interval still has one.
  busy = tick()
    .catch((e: unknown) => {
      failure ??= `reading the backends failed: ${errorMessage(e)}`;
    })
    .finally(() => {
      busy = undefined;
    });

  let stopped: Promise<BackendMemoryRecord> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        clearInterval(timer);
        await busy;
        await client.end().catch(() => {});
        // What this user cannot read is not recorded at all: a partial reading would be a wrong peak.
        if (failure) return backendMemoryRecord(new Map(), intervalMs, ticks, failure);
        return backendMemoryRecord(readings, intervalMs, ticks);
      })();
      return stopped;
    },
  };
}
