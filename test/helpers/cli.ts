/** Runs the built CLI (dist/cli.js) as a user would, collecting its output. */
import { spawn } from 'node:child_process';
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
