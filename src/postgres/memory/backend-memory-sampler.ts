/**
 * The private memory of a measured run's backends, sampled while it runs (src/core/results/memory.ts says
 * what the figure is). Over one extra connection the sampler lists the run's client backends
 * (pg_stat_activity: client backends of the benchmark database, not its own nor pgperf's other connections,
 * whose application_name starts with "pgperf-") every `intervalMs`, and reads each one's
 * `/proc/<pid>/smaps_rollup`. A tick that finds the previous one still running is skipped.
 *
 * Reading another user's smaps_rollup needs privileges (root, or the server's own user): where this process
 * may not, the memory is not recorded and the record says why; that never fails the run.
 *
 * With `contexts`, once, at `atMs`, the backend with the largest reading so far (of those still alive) is
 * asked for its memory contexts over the same connection (memory-contexts-capture.ts).
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
import { captureMemoryContexts } from './memory-contexts-capture.js';
import type { MemoryContextsRecord } from '../../core/results/memory-contexts.js';

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
  /** The largest backend's memory contexts, read from the server log `logFile` at `atMs` after the start. */
  contexts?: { logFile: string; atMs: number };
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
  let alive: number[] = [];

  const tick = async () => {
    const pids = (await client.query<{ pid: number }>(BACKENDS_SQL, [target.database])).rows.map(
      (r) => r.pid,
    );
    alive = pids;
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

  // The largest backend's contexts, once: after the tick running at `atMs`, so its reading counts.
  let contexts: Promise<MemoryContextsRecord> | undefined;
  const askContexts = (logFile: string): Promise<MemoryContextsRecord> => {
    const largest = alive
      .map((pid) => ({ pid, peak: Math.max(...(readings.get(pid) ?? [-1])) }))
      .filter((b) => b.peak >= 0)
      .sort((a, b) => b.peak - a.peak)[0];
    if (!largest)
      return Promise.resolve({ notRecorded: 'no backend had been read when they were asked for' });
    return captureMemoryContexts(client, largest.pid, {
      logFile,
      readBackend: async (pid) => {
        const r = await readSmapsField(proc, pid, BACKEND_MEMORY_FIELD);
        return r.kind === 'read' ? r.bytes : undefined;
      },
    });
  };
  const contextsTimer = options.contexts
    ? setTimeout(() => {
        const { logFile } = options.contexts!;
        contexts = Promise.resolve(busy)
          .then(() => askContexts(logFile))
          .catch((e: unknown) => ({ notRecorded: `asking for them failed: ${errorMessage(e)}` }));
      }, options.contexts.atMs)
    : undefined;

  let stopped: Promise<BackendMemoryRecord> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        clearInterval(timer);
        clearTimeout(contextsTimer);
        await busy;
        const largest = options.contexts
          ? ((await contexts) ?? { notRecorded: 'the run ended before they were asked for' })
          : undefined;
        await client.end().catch(() => {});
        // What this user cannot read is not recorded at all: a partial reading would be a wrong peak.
        if (failure) return backendMemoryRecord(new Map(), intervalMs, ticks, failure);
        const record = backendMemoryRecord(readings, intervalMs, ticks);
        return largest && record.peakBytes !== undefined ? { ...record, contexts: largest } : record;
      })();
      return stopped;
    },
  };
}
