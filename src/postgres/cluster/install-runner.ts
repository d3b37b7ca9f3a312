/**
 * Every program of a PostgreSQL install is code under test: a pull request's, a commitfest entry's, a
 * patch's. Not only the server: `postgres --version` and `--describe-config`, `pg_config`, `psql`, `initdb`
 * and `pg_ctl` run the tree's own code too. When pgperf is root each runs as the unprivileged run-as user
 * (run-as.ts), never as root: a process of another uid cannot read root's /proc/PID/environ, where the
 * Action's node process keeps INPUT_GITHUB-TOKEN and the runner's ACTIONS_* tokens, nor root's files.
 */
import type { ProcessRunner } from '../../machine/os/process.js';
import type { RunAsUser } from './run-as.js';

/** What running an install's programs needs: pgperf's runner, and who the programs run as. */
export interface InstallDeps {
  runner: ProcessRunner;
  /** The run-as user (resolveRunAs): undefined only when pgperf is not root. */
  runAs: RunAsUser | undefined;
  /** The run's stop signal: ends the probes of an install (`postgres --version`, `pg_config`). */
  signal?: AbortSignal | undefined;
}

/**
 * A runner for an install's programs: as `runAs` (in `/` unless told otherwise, since the user may not
 * enter pgperf's working directory, e.g. /root, and pg_config and initdb look up their own path from it).
 * Without a run-as user it is pgperf's own runner, unless pgperf is root: then every run is refused, a
 * bug in the caller (which should have resolved the user), rather than the code under test run as root.
 */
export function installRunner(
  { runner, runAs }: InstallDeps,
  isRoot: boolean = process.getuid?.() === 0,
): ProcessRunner {
  if (runAs) {
    return {
      run: (command, args, options = {}) =>
        runner.run(command, args, { cwd: '/', ...options, uid: runAs.uid, gid: runAs.gid }),
    };
  }
  if (!isRoot) return runner;
  return {
    run: (command) =>
      Promise.reject(
        new Error(
          `${command} would run as root: an install's programs run as the run-as user when pgperf is root (a bug: the caller did not resolve it)`,
        ),
      ),
  };
}
