/** A build step that fails says which step, for which build, and where the full log is. */
import { writeFile } from 'node:fs/promises';
import { findOnPath } from '../../machine/os/find-on-path.js';
import { errorMessage } from '../../core/util/errors.js';
import type { ProcessRunner } from '../../machine/os/process.js';
import { BuildStepError, type BuildStep } from './builder.js';
import { missingDependencyError } from './deps.js';

/** Runs fn as a named step: failures say which step failed (and where the log is). */
export async function inStep<T>(
  step: BuildStep,
  what: string,
  logFile: string | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof BuildStepError || (e instanceof Error && e.name === 'AbortError')) throw e;
    const full = errorMessage(e);
    const message = full.startsWith(`${what}: `) ? full.slice(what.length + 2) : full;
    const hint =
      (e as NodeJS.ErrnoException).code === 'ENOSPC'
        ? ' (the disk is full: free space or pass --cache-dir)'
        : '';
    if (logFile)
      await writeFile(logFile, `\n==> ${step} failed: ${message}\n`, { flag: 'a' }).catch(() => {});
    throw new BuildStepError(
      step,
      `${what}: ${step} failed: ${message}${hint}${logFile ? `\n--- full log: ${logFile}` : ''}`,
      logFile,
    );
  }
}

export async function requireGit(env: NodeJS.ProcessEnv, what: string): Promise<void> {
  if (!(await findOnPath('git', env.PATH))) {
    throw missingDependencyError([{ name: 'git', kind: 'program', package: 'git' }], what);
  }
}

export async function run(runner: ProcessRunner, command: string, args: string[]): Promise<void> {
  const res = await runner.run(command, args);
  if (res.exitCode !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${res.stderr.trim()}`);
}
