/**
 * Runs a command pgperf prints (a "next:" line, a Reproduce block, a docs example) as a user pastes it:
 * through bash, with `pgperf` on the PATH as a shim that runs the CLI's source (src/cli.ts through tsx), so
 * the test needs no build. Returns the exit code and output.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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

/** `script` run by bash in `cwd` as runPasted does, without blocking: for commands that measure (minutes). */
export function runPastedAsync(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  killAfterMs = 600_000,
): Promise<Pasted> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], {
      cwd,
      env: { ...env, PATH: `${pgperfShimDir()}:${env.PATH ?? ''}` },
    });
    const guard = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The Reproduce scripts of a report: in markdown (the PR comment, `compare --format markdown`) the ```sh
 * blocks under a "Reproduce" summary; in the plain-text mail each `cat > ...` heredoc and the command after
 * it, up to the blank line that ends them.
 */
export function reproduceScripts(report: string, format: 'markdown' | 'mail'): string[] {
  const lines = report.split('\n');
  const found: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (format === 'markdown') {
      if (!lines[i]!.startsWith('<details><summary>Reproduce')) continue;
      const open = lines.findIndex((l, j) => j > i && /^`{3,}sh$/.test(l));
      const fence = lines[open]!.replace('sh', '');
      found.push(lines.slice(open + 1, lines.indexOf(fence, open + 1)).join('\n'));
    } else {
      if (!lines[i]!.startsWith('cat > ')) continue;
      const end = lines.indexOf('', i);
      found.push(lines.slice(i, end < 0 ? undefined : end).join('\n'));
    }
  }
  return found;
}

/**
 * What a pasted script hands `pgperf` (each call's arguments, as bash splits them) and the files it writes,
 * without running pgperf: two scripts that agree on both run the same command.
 */
export function pastedCalls(
  script: string,
  dir: string,
): { calls: string[][]; files: Record<string, string> } {
  const out = spawnSync(
    'bash',
    ['-c', `set -euo pipefail\npgperf() { printf '%s\\0' "$@"; printf '\\n\\0'; }\n${script}`],
    { cwd: dir, encoding: 'utf8' },
  );
  if (out.status !== 0)
    throw new Error(`bash refused the script (exit ${out.status}): ${out.stderr}\n${script}`);
  const calls = out.stdout
    .split('\n\0')
    .filter((c) => c !== '')
    .map((c) => c.split('\0').filter((a, i, all) => i < all.length - 1 || a !== ''));
  const files = Object.fromEntries(
    readdirSync(dir).map((name) => [name, readFileSync(path.join(dir, name), 'utf8')]),
  );
  return { calls, files };
}
