/**
 * Child processes behind a small interface, so domain code can be driven by a real runner in
 * integration tests and the CLI, and every process pgperf starts can be found (and stopped) by pid.
 *
 * Every child is the leader of its own process group (spawned detached: setsid), and is stopped as a group
 * (kill(-pid)): what it started itself goes with it. `git fetch` over HTTP runs `git remote-http`, which
 * holds the Authorization header in its environment; killing only git left that helper running after
 * pgperf was gone. A group of its own also means a terminal's Ctrl-C reaches pgperf alone, which stops its
 * children itself (src/machine/os/signals.ts), in order.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { childEnvironment } from './child-env.js';

export interface RunOptions {
  /**
   * Variables for the child, on top of the allow-listed part of pgperf's environment (see
   * child-env.ts); secret-looking names are dropped even when given here.
   */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Run as this uid/gid (used to run PostgreSQL unprivileged when pgperf is root). */
  uid?: number;
  gid?: number;
  /** Kill the process (SIGTERM, then SIGKILL) after this long. */
  timeoutMs?: number;
  /** Aborting kills the process the same way. */
  signal?: AbortSignal;
  /** The signal an abort or a timeout sends first (default SIGTERM; `perf stat` prints its counts on SIGINT). */
  stopSignal?: NodeJS.Signals;
  /** Called for each complete stderr line as it arrives (progress output). */
  onStderrLine?: (line: string) => void;
  /** Text written to stdin, which is then closed. */
  input?: string;
}

export interface ProcessResult {
  command: string[];
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** Set when the process could not be started at all (ENOENT, EACCES). */
  spawnError?: string;
  timedOut: boolean;
}

export interface ProcessRunner {
  run(command: string, args: string[], options?: RunOptions): Promise<ProcessResult>;
}

/**
 * How long a short probe may take: a program asked its version or a fact (`pgbench --version`, `postgres
 * --describe-config`, `pg_config`, `cc -dumpmachine`, `getent`) answers in well under a second; a minute
 * covers a loaded machine. A client or an install is code pgperf did not write (a pull request's, a fake on
 * the PATH): one that never answers must not hold the run, nor a Ctrl-C, for ever.
 */
export const PROBE_TIMEOUT_MS = 60_000;

/**
 * The options of a probe: ended by its own deadline and by the run's stop signal. After the run, call
 * `signal?.throwIfAborted()`: a probe a Ctrl-C killed says "interrupted", not "cannot run".
 */
export function probeOptions(signal?: AbortSignal, options: RunOptions = {}): RunOptions {
  return { ...options, timeoutMs: PROBE_TIMEOUT_MS, ...(signal ? { signal } : {}) };
}

const KILL_GRACE_MS = 5_000;
/** How long a forced exit waits for the children it killed to be gone. */
const EXIT_WAIT_MS = 3_000;

/** The children nodeProcessRunner started that have not ended yet. */
const running = new Set<ChildProcess>();
let exiting = false;

/**
 * For a forced exit, after the cleanups: kills (SIGKILL, by their own pid) the children still running, e.g.
 * a `pg_ctl stop` of the interrupted graceful path that would outlive pgperf, and waits until they are gone.
 * Nothing is started after this: a later run() ends at once with a spawn error.
 */
export async function killRunningChildren(): Promise<void> {
  exiting = true;
  await stopRunningChildren();
}

/**
 * Kills (SIGKILL, with their process groups) the children running now and waits until they are gone; later
 * ones may still start. A forced exit does this before its cleanups, so that no child still writes into a
 * directory a cleanup removes (an initdb caught by a second Ctrl-C refilled its cluster's directory after
 * the cleanup had removed it).
 */
export async function stopRunningChildren(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          const gaveUp = setTimeout(resolve, EXIT_WAIT_MS);
          child.once('close', () => {
            clearTimeout(gaveUp);
            resolve();
          });
          killGroup(child, 'SIGKILL');
        }),
    ),
  );
}

/**
 * Sends `signal` to the child's process group (the child and whatever it started that did not leave the
 * group); to the child alone when the group is gone or cannot be signalled.
 */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid !== undefined) {
    try {
      process.kill(-child.pid, signal);
      return;
    } catch {
      // ESRCH: the group is gone; EPERM: not ours to signal. Try the child itself.
    }
  }
  child.kill(signal);
}

export const nodeProcessRunner: ProcessRunner = {
  run(command, args, options = {}) {
    const started = Date.now();
    if (exiting) {
      return Promise.resolve({
        command: [command, ...args],
        exitCode: null,
        signal: null,
        stdout: '',
        stderr: '',
        durationMs: 0,
        spawnError: 'not started: pgperf is exiting',
        timedOut: false,
      });
    }
    return new Promise((resolve) => {
      const child = spawn(command, args, {
        env: childEnvironment(process.env, options.env),
        cwd: options.cwd,
        uid: options.uid,
        gid: options.gid,
        stdio: ['pipe', 'pipe', 'pipe'],
        // Its own process group, stopped as one (killGroup).
        detached: true,
      });
      running.add(child);
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      let pendingErrLine = '';
      let timedOut = false;
      let spawnError: string | undefined;
      let killTimer: NodeJS.Timeout | undefined;

      let closed = false;
      // Until 'close' (the child and every holder of its pipes gone), the group may still have members.
      const terminate = () => {
        if (closed || killTimer) return;
        killGroup(child, options.stopSignal ?? 'SIGTERM');
        killTimer = setTimeout(() => killGroup(child, 'SIGKILL'), KILL_GRACE_MS);
      };
      const timeout = options.timeoutMs
        ? setTimeout(() => {
            timedOut = true;
            terminate();
          }, options.timeoutMs)
        : undefined;
      const onAbort = () => terminate();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      if (options.signal?.aborted) terminate();

      child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => {
        stderr.push(chunk);
        if (!options.onStderrLine) return;
        const lines = (pendingErrLine + chunk.toString('utf8')).split('\n');
        pendingErrLine = lines.pop() ?? '';
        for (const line of lines) options.onStderrLine(line);
      });
      child.on('error', (err) => {
        spawnError = err.message;
      });
      child.stdin.on('error', () => {
        // The child may exit before reading its input; that is its answer, not ours to report.
      });
      child.stdin.end(options.input ?? '');
      child.on('close', (code, signal) => {
        closed = true;
        running.delete(child);
        if (timeout) clearTimeout(timeout);
        if (killTimer) clearTimeout(killTimer);
        options.signal?.removeEventListener('abort', onAbort);
        if (options.onStderrLine && pendingErrLine) options.onStderrLine(pendingErrLine);
        resolve({
          command: [command, ...args],
          exitCode: code,
          signal,
          stdout: Buffer.concat(stdout).toString('utf8'),
          stderr: Buffer.concat(stderr).toString('utf8'),
          durationMs: Date.now() - started,
          spawnError,
          timedOut,
        });
      });
    });
  },
};

/** An unprivileged user a child runs as (pgperf as root runs PostgreSQL and the clients as one). */
export interface ChildUser {
  name: string;
  uid: number;
  gid: number;
}

/**
 * A runner whose every child runs as `user`: the benchmark clients, so that the workload scripts they
 * read (and their `\shell` commands) get that user's rights, not root's.
 */
export function runnerAs(runner: ProcessRunner, user: ChildUser): ProcessRunner {
  return {
    run(command, args, options = {}) {
      return runner.run(command, args, { ...options, uid: user.uid, gid: user.gid });
    },
  };
}

/** The last `lines` lines of a text, for error messages that show a log tail. */
export function tail(text: string, lines = 20): string {
  const all = text.trimEnd().split('\n');
  return all.slice(-lines).join('\n');
}

/** One line describing how a process ended, for error messages. */
export function describeExit(result: ProcessResult): string {
  if (result.spawnError) return `could not start ${result.command[0]}: ${result.spawnError}`;
  if (result.timedOut) return `timed out after ${Math.round(result.durationMs / 1000)} s`;
  if (result.signal) return `killed by ${result.signal}`;
  return `exit code ${result.exitCode}`;
}
