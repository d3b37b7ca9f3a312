/**
 * A pgbench workload's custom scripts as pgbench can open them: pgbench runs as the unprivileged run user
 * when pgperf is root, so a script is read with that user's rights, never root's. A clone of pgperf in
 * root's 0700 home holds the shipped scripts (workloads/scripts/*.sql, mode 0644) behind a directory that
 * user cannot enter: such a script, a regular file readable by all (mode o+r) that only a private directory
 * above keeps from the user, is copied into a temp directory of that user's and pgbench reads the copy.
 * pgperf reads a file as root only where the file's own mode grants everyone reading it; any other script
 * the user cannot open is refused before any server starts, naming the file and the user.
 */
import { chmod, copyFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { UserError } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import type { TempDir } from '../../machine/os/cleanup.js';
import { describeExit, probeOptions, type ChildUser, type ProcessRunner } from '../../machine/os/process.js';
import type { PgbenchWorkload } from './pgbench-workload.js';

export interface ReadableScriptsDeps {
  /** Runs as the user pgbench runs as. */
  runner: ProcessRunner;
  env: Record<string, string>;
  logger: Logger;
  /** The user pgbench runs as, if not pgperf's own (then pgperf cannot read more than pgbench). */
  clientUser?: ChildUser | undefined;
  /** A private temp directory of the client's user (registered for removal however pgperf ends). */
  tempDir(prefix: string): Promise<TempDir>;
  /** The run's stop signal: ends a check that hangs (a script that is a FIFO blocks its open). */
  signal?: AbortSignal | undefined;
}

/**
 * The workload with every script pgbench can open: the script itself, or a copy (see above). Throws a
 * UserError naming the script, the user and why it could not be opened otherwise.
 */
export async function readableScripts(
  workload: PgbenchWorkload,
  deps: ReadableScriptsDeps,
): Promise<PgbenchWorkload> {
  if (!workload.scripts?.length) return workload;
  const { clientUser } = deps;
  let copies: Promise<string> | undefined;
  const copyDir = () => (copies ??= deps.tempDir('pgperf-scripts-').then((t) => t.dir));
  const scripts = [];
  for (const [i, script] of workload.scripts.entries()) {
    const opened = await canOpen(script.file, deps);
    if (opened === true) {
      scripts.push(script);
      continue;
    }
    const copy = clientUser ? await handedCopy(script.file, i, copyDir) : undefined;
    if (copy !== undefined && (await canOpen(copy, deps)) === true) {
      deps.logger.info(
        `  workload ${workload.name}: ${script.file} is behind a directory the user "${clientUser!.name}" cannot enter; pgbench reads a copy, ${copy}`,
      );
      scripts.push({ ...script, file: copy });
      continue;
    }
    const who = clientUser ? `the user "${clientUser.name}" that runs pgbench` : 'pgbench';
    throw new UserError(
      `workload ${workload.name}: scripts[${i}].file: ${script.file} cannot be read by ${who} ` +
        `(${opened}); workload scripts are read with the rights of the user that runs pgbench, never as ` +
        'root (a file readable by all behind a private directory is handed to it as a copy): make the file ' +
        'and its directories readable by it',
    );
  }
  return { ...workload, scripts };
}

/** true when the client's user can open `file`, as pgbench will; else what stopped it. */
async function canOpen(file: string, deps: ReadableScriptsDeps): Promise<true | string> {
  const res = await deps.runner.run(
    'head',
    ['-c', '0', '--', file],
    probeOptions(deps.signal, { env: deps.env }),
  );
  deps.signal?.throwIfAborted();
  return res.exitCode === 0 ? true : res.stderr.trim().split('\n').pop() || describeExit(res);
}

/**
 * A copy of script `i` in the client user's temp directory, readable (0444), when the file is a regular
 * file readable by all; undefined when it is not, or the copy cannot be made.
 */
async function handedCopy(file: string, i: number, dir: () => Promise<string>): Promise<string | undefined> {
  try {
    const st = await stat(file);
    if (!st.isFile() || (st.mode & 0o004) === 0) return undefined;
    // Numbered: two scripts of one name from different directories stay apart.
    const copy = path.join(await dir(), `${i + 1}-${path.basename(file)}`);
    await copyFile(file, copy);
    await chmod(copy, 0o444);
    return copy;
  } catch {
    return undefined;
  }
}
