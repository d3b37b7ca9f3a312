/**
 * Runs a command pgperf prints (a "next:" line, a Reproduce block, a docs example) as a user pastes it:
 * through bash, with `pgperf` on the PATH as a shim that runs the CLI's source (src/cli.ts through tsx), so
 * the test needs no build. Returns the exit code and output.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLI_SOURCE } from './cli.js';

let shimDir: string | undefined;

/** A directory holding an executable `pgperf` that runs src/cli.ts with this Node and tsx. */
export function pgperfShimDir(): string {
  if (shimDir) return shimDir;
  shimDir = mkdtempSync(path.join(os.tmpdir(), 'pgperf-shim-'));
  const tsx = import.meta.resolve('tsx');
  writeFileSync(
    path.join(shimDir, 'pgperf'),
    `#!/bin/sh\nexec '${process.execPath}' --import '${tsx}' '${CLI_SOURCE}' "$@"\n`,
  );
  chmodSync(path.join(shimDir, 'pgperf'), 0o755);
  return shimDir;
}

/** Removes the shim (a test file's afterAll). */
export function removePgperfShim(): void {
  if (shimDir) rmSync(shimDir, { recursive: true, force: true });
  shimDir = undefined;
}

export interface Pasted {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `script` run by bash in `cwd` with the shim first on the PATH (and `env`'s other variables). */
export function runPasted(script: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Pasted {
  const res = spawnSync('bash', ['-c', script], {
    cwd,
    env: { ...env, PATH: `${pgperfShimDir()}:${env.PATH ?? ''}` },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}
