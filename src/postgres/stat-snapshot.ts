/**
 * One snapshot of a local server's cumulative counters, taken right before and right after every measured
 * run (src/core/results/steady.ts turns two of them into per-transaction costs):
 *
 * - pg_stat_wal (14+): wal_bytes, wal_records, wal_fpi, read generically so that a missing column is simply
 *   absent; older servers get WAL bytes from the WAL insert position, records and FPIs not at all;
 * - pg_stat_database of the benchmark database: blks_hit, blks_read, xact_commit, xact_rollback, temp_bytes,
 *   temp_files, and
 *   blk_read_time where track_io_timing is on (off, it stays 0: left out rather than read as "no time");
 * - pg_stat_io (16+): reads, writes and extends of relations (object 'relation' and 'temp relation'; 18
 *   also counts WAL there, which is not a relation read), summed over every backend type;
 * - /proc: user + system time of the postmaster's children (the backends, and the server's background
 *   processes) plus the postmaster's cutime/cstime, which holds the time of every child it has reaped, so
 *   that backends which exit during the run (pgbench's, at its end) still count.
 *
 * Cumulative statistics are flushed by a backend at transaction end (at most once a second) and when it
 * exits, and an exiting backend leaves pg_stat_activity before it flushes. So a snapshot first waits until
 * the client backends of the previous step (pgbench's, psql's VACUUM/CHECKPOINT) have exited — judged by
 * their processes, not by pg_stat_activity — and only then reads.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { StatCounters, StatSnapshot } from '../core/results/steady.js';
import { openSideConnection } from './cluster/side-connection.js';
import type { Connection } from './cluster/cluster.js';
import { parsePidStatLine, type PidStat } from '../machine/pid-stat.js';

export const STAT_SNAPSHOT_APPLICATION_NAME = 'pgperf-stat-snapshot';

/** Clock ticks per second of /proc/<pid>/stat times: USER_HZ, 100 on every Linux architecture pgperf runs on. */
const CLOCK_TICKS_PER_S = 100;

export interface StatSnapshotOptions {
  /** How long to wait for exiting client backends before reading anyway (default 5000 ms). */
  settleTimeoutMs?: number;
  /** Where /proc is (tests). */
  procRoot?: string;
}

/** Connects, waits for the previous step's backends to exit, reads the counters and disconnects. */
export async function takeStatSnapshot(
  target: Connection,
  options: StatSnapshotOptions = {},
): Promise<StatSnapshot> {
  const proc = options.procRoot ?? '/proc';
  let failure: unknown;
  const client = await openSideConnection(target, STAT_SNAPSHOT_APPLICATION_NAME, {
    statementTimeoutMs: 10_000,
    onError: (e) => {
      failure ??= e;
    },
  });
  try {
    const head = (
      await client.query<{ v: string; pid: number }>(
        "SELECT current_setting('server_version_num') AS v, pg_backend_pid() AS pid",
      )
    ).rows[0]!;
    const versionNum = Number(head.v);
    const unavailable: string[] = [];
    const server = await serverProcesses(proc, head.pid, target);
    if (server) {
      await settle(proc, server, target, options.settleTimeoutMs ?? 5000);
    } else {
      unavailable.push('backend CPU (the server processes are not visible in /proc)');
    }
    const counters: StatCounters = {};
    const db = (
      await client.query<Record<string, string | number | boolean | null>>(
        `SELECT blks_hit, blks_read, blk_read_time, xact_commit, xact_rollback, temp_bytes, temp_files,
                current_setting('track_io_timing')::boolean AS timing
           FROM pg_stat_database WHERE datname = current_database()`,
      )
    ).rows[0];
    setCounter(counters, 'blksHit', db?.blks_hit);
    setCounter(counters, 'blksRead', db?.blks_read);
    // Off (the default outside cold-start workloads) the time is not taken, which is a setting, not a gap.
    if (db?.timing === true) setCounter(counters, 'blkReadTimeMs', db.blk_read_time);
    setCounter(counters, 'xactCommit', db?.xact_commit);
    setCounter(counters, 'xactRollback', db?.xact_rollback);
    setCounter(counters, 'tempBytes', db?.temp_bytes);
    setCounter(counters, 'tempFiles', db?.temp_files);
    if (versionNum >= 140000) {
      const wal =
        (
          await client.query<{ j: Record<string, unknown> | null }>(
            'SELECT to_jsonb(w) AS j FROM pg_stat_wal w',
          )
        ).rows[0]?.j ?? {};
      // Read by column name: a column this server lacks is left out and said so.
      const columns = { walBytes: 'wal_bytes', walRecords: 'wal_records', walFpi: 'wal_fpi' } as const;
      for (const [key, column] of Object.entries(columns) as Array<[keyof typeof columns, string]>) {
        setCounter(counters, key, wal[column]);
        if (counters[key] === undefined) unavailable.push(`pg_stat_wal.${column}`);
      }
    } else {
      unavailable.push('WAL records and full-page images (pg_stat_wal: PostgreSQL 14+)');
      const lsn = (
        await client.query<{ b: string }>("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0') AS b")
      ).rows[0];
      setCounter(counters, 'walBytes', lsn?.b);
    }
    if (versionNum >= 160000) {
      const io = (
        await client.query<Record<string, string | null>>(
          `SELECT sum(reads) AS reads, sum(writes) AS writes, sum(extends) AS extends
             FROM pg_stat_io WHERE object IN ('relation', 'temp relation')`,
        )
      ).rows[0];
      setCounter(counters, 'ioReads', io?.reads);
      setCounter(counters, 'ioWrites', io?.writes);
      setCounter(counters, 'ioExtends', io?.extends);
    } else {
      unavailable.push('I/O operations (pg_stat_io: PostgreSQL 16+)');
    }
    if (server) {
      const cpu = await serverCpuUs(proc, server.postmaster);
      if (cpu === undefined) unavailable.push('backend CPU (/proc could not be read)');
      else counters.cpuUs = cpu;
    }
    if (failure) throw failure;
    return { serverVersionNum: versionNum, takenAtMs: Date.now(), counters, unavailable };
  } finally {
    await client.end().catch(() => {});
  }
}

function setCounter(counters: StatCounters, key: keyof StatCounters, value: unknown): void {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  if (Number.isFinite(n) && n >= 0) counters[key] = n;
}

async function readStat(proc: string, pid: number): Promise<PidStat | undefined> {
  try {
    return parsePidStatLine(await readFile(path.join(proc, String(pid), 'stat'), 'utf8'));
  } catch {
    return undefined;
  }
}

async function readCmdline(proc: string, pid: number): Promise<string | undefined> {
  try {
    return (await readFile(path.join(proc, String(pid), 'cmdline'), 'utf8')).replace(/\0/g, ' ');
  } catch {
    return undefined;
  }
}

/** A client backend's process title ("postgres: USER DB [local] idle"), as opposed to the server's own. */
function isClientBackendTitle(cmdline: string, target: Connection): boolean {
  return cmdline.includes(` ${target.user} ${target.database} `);
}

interface ServerProcesses {
  postmaster: number;
  /** The snapshot's own backend, which is not waited for. */
  own: number;
}

/**
 * The postmaster of the backend serving this snapshot, when that backend is visible here and is ours (its
 * title names our user and database: not some other process with the same pid in another namespace).
 */
async function serverProcesses(
  proc: string,
  backendPid: number,
  target: Connection,
): Promise<ServerProcesses | undefined> {
  const stat = await readStat(proc, backendPid);
  const title = await readCmdline(proc, backendPid);
  if (!stat || title === undefined || !isClientBackendTitle(title, target)) return undefined;
  return { postmaster: stat.ppid, own: backendPid };
}

/** The pids of the postmaster's children: from its children file where the kernel has one, else a scan. */
async function childPids(proc: string, postmaster: number): Promise<number[]> {
  try {
    const text = await readFile(
      path.join(proc, String(postmaster), 'task', String(postmaster), 'children'),
      'utf8',
    );
    return text.trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    const pids = (await readdir(proc)).filter((d) => /^\d+$/.test(d)).map(Number);
    const stats = await Promise.all(pids.map((p) => readStat(proc, p)));
    return stats.filter((s): s is PidStat => s?.ppid === postmaster).map((s) => s.pid);
  }
}

/** Waits (polling) until no client backend other than the snapshot's own is alive, or the time is up. */
async function settle(proc: string, server: ServerProcesses, target: Connection, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const others = [];
    for (const pid of await childPids(proc, server.postmaster)) {
      if (pid === server.own) continue;
      const stat = await readStat(proc, pid);
      if (!stat || stat.state === 'Z' || stat.state === 'X') continue;
      const title = await readCmdline(proc, pid);
      if (title !== undefined && isClientBackendTitle(title, target)) others.push(pid);
    }
    if (others.length === 0 || Date.now() >= deadline) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * User + system time, in µs, of the postmaster's children: the live ones plus what the postmaster holds of
 * the reaped ones (cutime, cstime). A child reaped while the children are read would count twice or not
 * at all, so the read is repeated until the postmaster's reaped time is the same before and after it.
 */
export async function serverCpuUs(proc: string, postmaster: number): Promise<number | undefined> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = await readStat(proc, postmaster);
    if (!before) return undefined;
    let ticks = before.cutime + before.cstime;
    for (const pid of await childPids(proc, postmaster)) {
      const s = await readStat(proc, pid);
      if (s && s.ppid === postmaster) ticks += s.utime + s.stime;
    }
    const after = await readStat(proc, postmaster);
    if (!after) return undefined;
    if (after.cutime === before.cutime && after.cstime === before.cstime) {
      return (ticks * 1_000_000) / CLOCK_TICKS_PER_S;
    }
  }
  return undefined;
}
