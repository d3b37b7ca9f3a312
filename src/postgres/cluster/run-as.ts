/**
 * PostgreSQL refuses to run as root. When pgperf is root (containers, CI runners) it runs initdb,
 * pg_ctl and postgres as an unprivileged user, creating that user if it is missing.
 */
import type { Logger } from '../../core/util/logger.js';
import { UserError } from '../../core/util/errors.js';
import { probeOptions, type ChildUser, type ProcessRunner } from '../../machine/os/process.js';

export type RunAsUser = ChildUser;

/**
 * pgperf's own unprivileged system user (no home, no login shell), created when missing. Not Debian's
 * `postgres`, which owns the machine's real clusters: code under test (a PR's server, a workload's
 * `\shell`) must not be able to touch them.
 */
export const DEFAULT_RUN_AS = 'pgperf';

/**
 * Who runs the server: undefined means "the current user" (not root). As root, the requested user
 * (default `pgperf`), created as a system user when missing.
 */
export async function resolveRunAs(
  requested: string | undefined,
  deps: { runner: ProcessRunner; logger: Logger; isRoot?: boolean; signal?: AbortSignal | undefined },
): Promise<RunAsUser | undefined> {
  const isRoot = deps.isRoot ?? process.getuid?.() === 0;
  if (!isRoot) return undefined;
  const name = requested ?? DEFAULT_RUN_AS;
  const problem = runAsNameProblem('--run-as', name);
  if (problem) throw new UserError(problem);
  const found = await lookupUser(name, deps.runner, deps.signal);
  if (found?.uid === 0)
    throw new UserError(`--run-as ${name}: that user has uid 0 (root); name an unprivileged user`);
  if (found) return found;
  const created = await deps.runner.run(
    'useradd',
    [
      '--system',
      '--user-group',
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      name,
    ],
    probeOptions(deps.signal),
  );
  deps.signal?.throwIfAborted();
  const user = created.exitCode === 0 ? await lookupUser(name, deps.runner, deps.signal) : undefined;
  if (user?.uid === 0)
    throw new UserError(`--run-as ${name}: that user has uid 0 (root); name an unprivileged user`);
  if (!user) {
    throw new UserError(
      `pgperf runs as root and PostgreSQL refuses to; creating the user "${name}" to run it failed ` +
        `(${created.spawnError ?? created.stderr.trim()}). Create an unprivileged user and pass --run-as USER, ` +
        'or run pgperf as a non-root user.',
    );
  }
  deps.logger.info(
    `created system user "${name}" to run PostgreSQL (pgperf runs as root; PostgreSQL refuses to)`,
  );
  return user;
}

/**
 * Why `name` cannot be the run-as user `what` (a flag or input) names: root, or not a user name. Checked
 * when the flag or input is read, whoever runs pgperf, and again when the user is resolved.
 */
export function runAsNameProblem(what: string, name: string): string | undefined {
  if (name === 'root' || name === '0') {
    return `${what} ${name}: PostgreSQL refuses to run as root; expected an unprivileged user name`;
  }
  if (!/^[a-z_][a-z0-9_-]{0,31}$/.test(name)) {
    return `${what} '${name}': expected a user name (lower-case letters, digits, "_" and "-", e.g. pgperf)`;
  }
  return undefined;
}

/** The user's uid and gid from `getent passwd`, or undefined when there is no such user. */
export async function lookupUser(
  name: string,
  runner: ProcessRunner,
  signal?: AbortSignal,
): Promise<RunAsUser | undefined> {
  const res = await runner.run('getent', ['passwd', name], probeOptions(signal));
  signal?.throwIfAborted();
  if (res.exitCode !== 0) return undefined;
  const fields = res.stdout.trim().split(':');
  const uid = Number(fields[2]);
  const gid = Number(fields[3]);
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) return undefined;
  return { name, uid, gid };
}
