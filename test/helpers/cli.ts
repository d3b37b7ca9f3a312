/** Runs the built CLI (dist/cli.js) as a user would, collecting its output. */
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const CLI = path.join(ROOT, 'dist/cli.js');

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  cwd?: string;
  /** The whole environment of the child (default: this process's). */
  env?: NodeJS.ProcessEnv;
}

export function runCli(args: string[], options: RunCliOptions = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * `pgperf run` of `workload` with one install as both arms (base and head), a fixed seed, no store, the
 * results under `out` and the clusters under `tmpDir`; `extra` flags follow.
 */
export function sameInstallRunArgs(
  binDir: string,
  tmpDir: string,
  workload: string,
  out: string,
  extra: string[] = [],
): string[] {
  return [
    'run',
    '--arm',
    `base=${binDir}`,
    '--arm',
    `head=${binDir}`,
    '--workload',
    workload,
    '--seed',
    '7',
    '--no-store',
    '--out',
    out,
    '--tmp-dir',
    tmpDir,
    ...extra,
  ];
}

/** The results.json of the one run a `--out` directory holds. */
export async function onlyResultsFile(out: string): Promise<string> {
  const [run] = await readdir(out);
  return path.join(out, run!, 'results.json');
}
