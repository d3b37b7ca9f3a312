/**
 * One PostgreSQL cluster for benchmarking: initdb into a private temp directory, the shared
 * postgresql.conf, start on a private unix-socket directory and a free port, stop (fast, then
 * immediate, then the postmaster's own pid), remove.
 */
import {
  access,
  chown,
  constants,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  rm,
  writeFile,
  appendFile,
} from 'node:fs/promises';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import os from 'node:os';
import path from 'node:path';
import { UserError } from '../../core/util/errors.js';
import { shellWord } from '../../core/util/shell-word.js';
import type { Logger } from '../../core/util/logger.js';
import {
  describeExit,
  probeOptions,
  tail,
  type ProcessRunner,
  type RunOptions,
} from '../../machine/os/process.js';
import { onCleanup } from '../../machine/os/cleanup.js';
import { processState } from '../../machine/os/process-state.js';
import { clusterSettings, renderConf, type ConfInput } from './conf.js';
import type { RunAsUser } from './run-as.js';
import { installRunner, type InstallDeps } from './install-runner.js';

/** The database superuser pgperf creates in every cluster. */
export const SUPERUSER = 'postgres';
export const BENCH_DATABASE = 'pgperf';
const START_TIMEOUT_S = 120;
/**
 * initdb takes seconds (it syncs nothing: --no-sync); ten minutes covers a loaded machine and a slow disk.
 * An install's initdb is code under test: one that never ends must not hold the run.
 */
const INITDB_TIMEOUT_S = 600;
/** pg_ctl start waits START_TIMEOUT_S itself; past that and a grace, it does not answer. */
const PG_CTL_START_TIMEOUT_S = START_TIMEOUT_S + 30;
const STOP_TIMEOUT_S = 60;
const PORT_ATTEMPTS = 3;

export interface ClusterSpec {
  /** Names the cluster in messages and log files, e.g. "head" or "head/select-only". */
  label: string;
  binDir: string;
  /** Where the private directory is created (default: the OS temp dir). */
  parentDir?: string;
  conf: Omit<ConfInput, 'port' | 'socketDir'>;
  runAs?: RunAsUser;
  /** Data checksums on or off, pinned because PG18 changed initdb's default. */
  dataChecksums?: boolean;
  /** Seconds each shutdown mode may take before the next, harsher one (default 60). */
  stopTimeoutS?: number;
  /**
   * Runs `pg_ctl start` under this command prefix (e.g. ["taskset", "-c", "0-3"], from
   * src/machine/pinning.ts): the postmaster and every backend inherit the CPU set.
   */
  cpuPrefix?: string[];
}

export interface StartOptions {
  /** A command the postmaster runs under (its backends are forked, so they run under it too). */
  wrapper?: readonly string[];
}

export interface ClusterDeps {
  runner: ProcessRunner;
  logger: Logger;
  /**
   * The run's stop signal: it ends the steps that bring a cluster up (`initdb`, `pg_ctl start`), each also
   * bounded by a deadline of its own; never the stops, which the cleanup needs once the signal came.
   */
  signal?: AbortSignal | undefined;
}

export interface Connection {
  host: string;
  port: number;
  user: string;
  database: string;
}

export interface ServerVersion {
  /** As printed by `postgres --version`. */
  text: string;
  major: number;
}

const REQUIRED_BINARIES = ['initdb', 'pg_ctl', 'postgres', 'psql'];

/**
 * Checks that a bin dir holds a usable PostgreSQL installation and reads its version (`postgres --version`,
 * run as the run-as user when pgperf is root: install-runner.ts).
 */
export async function inspectBinDir(binDir: string, what: string, deps: InstallDeps): Promise<ServerVersion> {
  for (const bin of REQUIRED_BINARIES) {
    try {
      await access(path.join(binDir, bin), constants.X_OK);
    } catch {
      throw new UserError(
        `${what}: ${binDir} has no executable ${bin} (expected a PostgreSQL bin directory such as /usr/lib/postgresql/15/bin)`,
      );
    }
  }
  const res = await installRunner(deps).run(
    path.join(binDir, 'postgres'),
    ['--version'],
    probeOptions(deps.signal),
  );
  deps.signal?.throwIfAborted();
  const text = res.stdout.trim();
  const major = parseMajor(text);
  if (res.exitCode !== 0 || major === undefined) {
    const output = `${text}\n${res.stderr}`.trim();
    // Root may execute what the run-as user cannot reach (a bin dir under /root): say who must.
    const reach =
      deps.runAs && res.spawnError
        ? `; the user "${deps.runAs.name}" that runs PostgreSQL must be able to reach and execute ${binDir} (no private directory such as /root above it)`
        : '';
    throw new UserError(
      `${what}: ${binDir}/postgres --version failed (${describeExit(res)})${output ? `: ${output}` : ''}${reach}`,
    );
  }
  return { text, major };
}

/** "postgres (PostgreSQL) 15.18 (Debian ...)" -> 15; "... 9.6.24" -> 9; "18devel" -> 18. */
export function parseMajor(versionText: string): number | undefined {
  const m = /\(PostgreSQL\)\s+(\d+)/.exec(versionText) ?? /(\d+)(?:\.\d+|devel|beta|rc)/.exec(versionText);
  return m ? Number(m[1]) : undefined;
}

export class PgCluster {
  private port = 0;
  private unregister: () => void = () => {};

  private constructor(
    readonly spec: ClusterSpec,
    readonly dir: string,
    readonly version: ServerVersion,
    private readonly deps: ClusterDeps,
  ) {}

  get label(): string {
    return this.spec.label;
  }
  get dataDir(): string {
    return path.join(this.dir, 'data');
  }
  get socketDir(): string {
    return path.join(this.dir, 'socket');
  }
  get logFile(): string {
    return path.join(this.dir, 'server.log');
  }
  get connection(): Connection {
    return { host: this.socketDir, port: this.port, user: SUPERUSER, database: BENCH_DATABASE };
  }
  get settings(): Record<string, string> {
    return clusterSettings({ ...this.spec.conf, port: this.port, socketDir: this.socketDir });
  }

  /** initdb into a new private directory. The caller must destroy() it. */
  static async create(spec: ClusterSpec, deps: ClusterDeps): Promise<PgCluster> {
    const version = await inspectBinDir(spec.binDir, `arm ${spec.label}`, { ...deps, runAs: spec.runAs });
    const dir = await mkdtemp(path.join(spec.parentDir ?? os.tmpdir(), `pgperf-${safeName(spec.label)}-`));
    const cluster = new PgCluster(spec, dir, version, deps);
    cluster.unregister = onCleanup(() => cluster.destroy());
    try {
      await mkdir(cluster.socketDir, { mode: 0o700 });
      if (spec.runAs) {
        await chown(dir, spec.runAs.uid, spec.runAs.gid);
        await chown(cluster.socketDir, spec.runAs.uid, spec.runAs.gid);
        await cluster.checkReachable();
      }
      await cluster.initdb();
    } catch (e) {
      await cluster.destroy();
      throw e;
    }
    return cluster;
  }

  /** The run-as user must be able to enter the directory; a private parent (e.g. under /root) stops it. */
  private async checkReachable(): Promise<void> {
    const res = await this.deps.runner.run('test', ['-w', this.dir, '-a', '-x', this.dir], {
      uid: this.spec.runAs!.uid,
      gid: this.spec.runAs!.gid,
      cwd: '/',
    });
    if (res.exitCode !== 0) {
      throw new UserError(
        `arm ${this.spec.label}: the user "${this.spec.runAs!.name}" that runs PostgreSQL cannot enter ${this.dir}; ` +
          'a parent directory is private. Choose a --tmp-dir that user can reach (e.g. under /tmp).',
      );
    }
  }

  private async initdb(): Promise<void> {
    const args = [
      '-D',
      this.dataDir,
      '-U',
      SUPERUSER,
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ];
    if (this.spec.dataChecksums) args.push('--data-checksums');
    else if (this.version.major >= 18) args.push('--no-data-checksums');
    const res = await this.pg('initdb', args, undefined, this.bringUp(INITDB_TIMEOUT_S));
    this.deps.signal?.throwIfAborted();
    if (res.exitCode !== 0) {
      throw new UserError(
        `arm ${this.spec.label}: initdb failed (${describeExit(res)}):\n${tail(res.stderr + res.stdout)}`,
      );
    }
  }

  /**
   * Writes the configuration and starts the server; a port found taken is replaced by another. With
   * `wrapper` (e.g. ["valgrind", "--tool=cachegrind", ...]) the postmaster runs under that command until
   * the next start without one: pg_ctl starts a script that execs the wrapper with postgres and its
   * arguments, in the same process, so pg_ctl's pid check and stop work unchanged.
   */
  async start(options: StartOptions = {}): Promise<void> {
    const wrapperArgs = options.wrapper ? ['-p', await this.writeWrapper(options.wrapper)] : [];
    for (let attempt = 1; ; attempt++) {
      this.port = await freePort();
      await writeFile(path.join(this.dataDir, 'pgperf.conf'), renderConf(this.settings));
      await this.includeConf();
      const res = await this.pg(
        'pg_ctl',
        [
          'start',
          '-D',
          this.dataDir,
          '-l',
          this.logFile,
          '-w',
          '-t',
          String(START_TIMEOUT_S),
          '-s',
          ...wrapperArgs,
        ],
        this.spec.cpuPrefix,
        this.bringUp(PG_CTL_START_TIMEOUT_S),
      );
      // Stopped by the signal: the caller's cleanup stops what pg_ctl may have started (destroy()).
      this.deps.signal?.throwIfAborted();
      if (res.exitCode === 0) {
        this.deps.logger.debug(`arm ${this.spec.label}: server up on ${this.socketDir} port ${this.port}`);
        await this.ensureDatabase();
        return;
      }
      const log = await this.logTail(30);
      if (attempt < PORT_ATTEMPTS && /already in use|could not create lock file|could not bind/i.test(log)) {
        this.deps.logger.warn(`arm ${this.spec.label}: port ${this.port} is taken, trying another`);
        continue;
      }
      await this.stop();
      throw new UserError(
        `arm ${this.spec.label}: PostgreSQL failed to start (${describeExit(res)}). Server log (${this.logFile}):\n${log || res.stderr}`,
      );
    }
  }

  /** A script in the cluster's directory that execs `wrapper` with this install's postgres and its arguments. */
  private async writeWrapper(wrapper: readonly string[]): Promise<string> {
    const script = path.join(this.dir, 'postgres-wrapper.sh');
    const words = [...wrapper, path.join(this.spec.binDir, 'postgres')].map(shellWord).join(' ');
    await writeFile(script, `#!/bin/sh\nexec ${words} "$@"\n`, { mode: 0o755 });
    if (this.spec.runAs) await chown(script, this.spec.runAs.uid, this.spec.runAs.gid);
    return script;
  }

  private async includeConf(): Promise<void> {
    const conf = path.join(this.dataDir, 'postgresql.conf');
    const text = await readFile(conf, 'utf8');
    if (!text.includes("include = 'pgperf.conf'")) await appendFile(conf, "\ninclude = 'pgperf.conf'\n");
  }

  private async ensureDatabase(): Promise<void> {
    const exists = await this.psql(
      `SELECT 1 FROM pg_database WHERE datname = '${BENCH_DATABASE}'`,
      'postgres',
    );
    if (exists.trim() !== '1') await this.psql(`CREATE DATABASE ${BENCH_DATABASE}`, 'postgres');
  }

  /** Runs SQL through the cluster's psql (as the run-as user); returns unaligned, tuples-only output. */
  async psql(sql: string, database = BENCH_DATABASE): Promise<string> {
    const { host, port, user } = this.connection;
    const res = await this.programs().run(
      path.join(this.spec.binDir, 'psql'),
      [
        '-X',
        '-q',
        '-A',
        '-t',
        '-v',
        'ON_ERROR_STOP=1',
        '-h',
        host,
        '-p',
        String(port),
        '-U',
        user,
        '-d',
        database,
        '-c',
        sql,
      ],
      { env: { LC_ALL: 'C', PGAPPNAME: 'pgperf' } },
    );
    if (res.exitCode !== 0) {
      // pgperf's own queries are plain; what makes one fail is the server's configuration (a setting such
      // as default_transaction_read_only or statement_timeout), so it is the user's to change.
      throw new UserError(
        `arm ${this.spec.label}: psql "${sql}" failed (${describeExit(res)}): ${res.stderr.trim()}; ` +
          "pgperf's own queries fail like this when a setting of this arm or workload forbids them " +
          "(default_transaction_read_only, statement_timeout, ...): check --set and the workload's settings",
      );
    }
    return res.stdout;
  }

  /**
   * True when this cluster's postmaster is alive: the pid in postmaster.pid exists, is not a zombie and
   * is a postgres of this data directory. Not `pg_ctl status`, which trusts a stale pid file (it said
   * "running" for a postmaster killed with kill -9 whose pid had become a zombie).
   */
  async isRunning(): Promise<boolean> {
    const pid = await this.postmasterPid();
    return pid !== undefined && (await postmasterAlive(pid, this.dataDir));
  }

  /** How often the server was restarted after dying during a run. */
  restarts = 0;

  /**
   * Starts the server again after its postmaster died: waits until the dead postmaster's backends have
   * let go of its shared memory (they notice its death and exit; stragglers are killed after
   * `waitS`), then starts on a fresh port. Counts the restart.
   */
  async restartAfterCrash(waitS = ORPHAN_WAIT_S): Promise<void> {
    this.restarts++;
    const shm = await this.sharedMemoryId();
    if (shm !== undefined) await releaseSharedMemory(shm, waitS, this.deps.logger, this.spec.label);
    // The dead postmaster may linger as a zombie (its parent, often a container's init, does not reap
    // it): PostgreSQL's own check (kill(pid, 0)) would then refuse the lock file. It is dead and its
    // memory released, so its lock file goes.
    if (!(await this.isRunning())) await rm(path.join(this.dataDir, 'postmaster.pid'), { force: true });
    await this.start();
  }

  /** The System V shared memory id in postmaster.pid (line 7: "key id"), the interlock backends hold. */
  private async sharedMemoryId(): Promise<number | undefined> {
    try {
      const line = (await readFile(path.join(this.dataDir, 'postmaster.pid'), 'utf8')).split('\n')[6];
      const id = Number(line?.trim().split(/\s+/)[1]);
      return Number.isInteger(id) && id >= 0 ? id : undefined;
    } catch {
      return undefined;
    }
  }

  /** Stops the server: fast shutdown, then immediate, then SIGKILL to the postmaster's own pid. */
  async stop(): Promise<void> {
    const postmaster = await this.postmasterPid();
    if (postmaster === undefined || !(await postmasterAlive(postmaster, this.dataDir))) {
      return;
    }
    for (const mode of ['fast', 'immediate']) {
      const res = await this.pg('pg_ctl', [
        'stop',
        '-D',
        this.dataDir,
        '-m',
        mode,
        '-w',
        '-t',
        String(this.spec.stopTimeoutS ?? STOP_TIMEOUT_S),
        '-s',
      ]);
      if (res.exitCode === 0 || !(await this.hasPidFile())) {
        // pg_ctl returns once the pid file is gone, which the postmaster unlinks just before it exits.
        await waitUntilGone(postmaster, this.dataDir);
        return;
      }
      this.deps.logger.warn(`arm ${this.spec.label}: pg_ctl stop -m ${mode} failed: ${res.stderr.trim()}`);
    }
    const pid = await this.postmasterPid();
    if (pid) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }

  /** Stops the server and removes the cluster's directory. Safe to call more than once. */
  async destroy(): Promise<void> {
    // Unregistered only once the directory is gone: a second Ctrl-C during a slow stop then still finds
    // this cluster in the registry, and the forced cleanup finishes the job before pgperf exits.
    try {
      await this.stop();
    } finally {
      await rm(this.dir, { recursive: true, force: true });
      this.unregister();
    }
  }

  async logTail(lines = 20): Promise<string> {
    try {
      return tail(await readFile(this.logFile, 'utf8'), lines);
    } catch {
      return '';
    }
  }

  async postmasterPid(): Promise<number | undefined> {
    try {
      const first = (await readFile(path.join(this.dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0];
      const pid = Number(first);
      return Number.isInteger(pid) && pid > 0 ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  private async hasPidFile(): Promise<boolean> {
    return (await this.postmasterPid()) !== undefined;
  }

  /** The runner of the install's programs: as the run-as user when pgperf is root (install-runner.ts). */
  private programs(): ProcessRunner {
    return installRunner({ runner: this.deps.runner, runAs: this.spec.runAs });
  }

  /** The options of a step that brings the cluster up: the run's stop signal and a deadline. */
  private bringUp(timeoutS: number): RunOptions {
    return { timeoutMs: timeoutS * 1000, ...(this.deps.signal ? { signal: this.deps.signal } : {}) };
  }

  /** Runs a server-side binary as the run-as user, optionally under a command prefix. */
  private pg(bin: string, args: string[], prefix?: string[], extra: RunOptions = {}) {
    // In the cluster's directory, which the run-as user owns (it cannot enter root's cwd, e.g. /root).
    const options: RunOptions = { ...extra, env: { LC_ALL: 'C' }, cwd: this.dir };
    const command = path.join(this.spec.binDir, bin);
    if (prefix && prefix.length > 0) {
      return this.programs().run(prefix[0]!, [...prefix.slice(1), command, ...args], options);
    }
    return this.programs().run(command, args, options);
  }
}

/** Seconds the backends of a dead postmaster get to exit before they are killed. */
const ORPHAN_WAIT_S = 30;

/** State letter of a process from /proc/<pid>/stat ("R", "S", "Z", ...), or undefined when gone. */
/**
 * Whether `pid` is a live postmaster of `dataDir`: kill(pid, 0) succeeds, /proc says it is not a
 * zombie or dead, and (where /proc shows the command line) it is a postgres started on that data
 * directory, so a recycled pid is not mistaken for the server.
 */
export async function postmasterAlive(pid: number, dataDir: string): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = await processState(pid);
  if (state === undefined) return process.platform !== 'linux';
  if (state === 'Z' || state === 'X' || state === 'x') return false;
  try {
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
    return cmdline.includes(dataDir) || cmdline.some((arg) => arg.includes(dataDir));
  } catch {
    return true;
  }
}

/** How long stop() waits for a postmaster that has unlinked its pid file to exit. */
const EXIT_WAIT_MS = 5_000;

async function waitUntilGone(pid: number, dataDir: string): Promise<void> {
  const until = Date.now() + EXIT_WAIT_MS;
  while (Date.now() < until && (await postmasterAlive(pid, dataDir))) await sleep(20);
}

/** Attach count of a System V shared memory segment, or undefined when it no longer exists. */
async function shmAttachCount(shmid: number): Promise<number | undefined> {
  try {
    const rows = (await readFile('/proc/sysvipc/shm', 'utf8')).split('\n').slice(1);
    for (const row of rows) {
      const f = row.trim().split(/\s+/);
      if (Number(f[1]) === shmid) return Number(f[6]);
    }
  } catch {
    // No /proc/sysvipc: cannot tell; the start below says if the memory is still in use.
  }
  return undefined;
}

/**
 * Waits until nobody is attached to the dead postmaster's shared memory (PostgreSQL refuses to start
 * while old backends hold it); after `waitS` seconds kills the processes that still map it.
 */
async function releaseSharedMemory(shmid: number, waitS: number, logger: Logger, label: string) {
  const deadline = Date.now() + waitS * 1000;
  while (Date.now() < deadline) {
    const n = await shmAttachCount(shmid);
    if (!n) return;
    await sleep(200);
  }
  const holders = await processesMappingShm(shmid);
  logger.warn(
    `arm ${label}: ${holders.length} backend(s) of the dead server still hold its shared memory after ${waitS} s; killing pids ${holders.join(', ')}`,
  );
  for (const pid of holders) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  for (let i = 0; i < 50 && (await shmAttachCount(shmid)); i++) {
    await sleep(100);
  }
}

/** Pids whose memory maps show the segment (as "/SYSV<key> (deleted)" with the segment's id as inode). */
async function processesMappingShm(shmid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const maps = await readFile(`/proc/${entry}/maps`, 'utf8');
      if (maps.split('\n').some((l) => l.includes('/SYSV') && l.trim().split(/\s+/)[4] === String(shmid)))
        pids.push(Number(entry));
    } catch {
      // Ended, or not ours to read.
    }
  }
  return pids;
}

/** A TCP port on loopback that is free right now (PostgreSQL also names its socket file after it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

function safeName(label: string): string {
  return label.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 40);
}
