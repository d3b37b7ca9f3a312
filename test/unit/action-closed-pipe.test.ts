/**
 * The Action's output pipe closed (the runner's log reader gone): the step ends with its own exit code.
 * Each failed write used to be an uncaught error whose report failed to write again, a loop that kept the
 * process busy forever (seen when a test runner was killed under the action).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The action from source with a bad input; stdout and stderr closed at once, or read. */
async function runAction(
  closed: boolean,
): Promise<{ code: number | null; signal: string | null; out: string }> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-closed-pipe-'));
  try {
    const entry = ['--import', import.meta.resolve('tsx'), path.join(root, 'src/index.ts')];
    const child = spawn(process.execPath, entry, {
      cwd: tmp,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, HOME: tmp, GITHUB_ACTIONS: 'true', INPUT_MODE: 'nonsense' },
    });
    let out = '';
    if (closed) {
      child.stdout.destroy();
      child.stderr.destroy();
    } else {
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.on('close', (c, s) => resolve([c, s])),
    );
    clearTimeout(timer);
    return { code, signal, out };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

it('ends with exit code 1 on bad input even when nothing can be written to its output', async () => {
  const read = await runAction(false);
  expect(read.out).toMatch(/::error::.*input 'mode'.*nonsense/);
  expect(read.code).toBe(1);
  const closed = await runAction(true);
  expect(closed.signal).toBeNull();
  expect(closed.code).toBe(1);
}, 60_000);
