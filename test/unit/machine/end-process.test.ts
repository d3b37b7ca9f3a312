/**
 * A second SIGINT ends pgperf whatever is pending (issue #40 item 5). process.exit() waits for libuv's
 * thread pool, so a read stuck there (a hung mount; here a FIFO nobody writes, read by a module loaded
 * before the CLI) used to keep pgperf alive after "exiting now" until a SIGKILL. The CLI from source
 * (src/cli.ts through tsx), stuck on a client that never answers (a fake bin dir whose pgbench ignores
 * SIGINT and SIGTERM), gets two SIGINTs and must be gone within 5 s, with 130 (or ended by SIGINT, which a
 * shell reports as 130); a command done while such a read still waits ends too.
 */
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { endProcess, type EndProcessDeps } from '../../../src/machine/os/end-process.js';
import { useTmpDir } from '../../helpers/tmp-dir.js';

const root = new URL('../../../', import.meta.url).pathname;
const preload = new URL('./stuck-read.preload.ts', import.meta.url).pathname;
const tmp = useTmpDir('pgperf-end-process-');

describe('endProcess', () => {
  const deps = (pending: number) => {
    const calls: string[] = [];
    const d: EndProcessDeps = {
      pending: () => pending,
      exit: (code) => calls.push(`exit ${code}`),
      raise: (signal) => calls.push(`raise ${signal}`),
      warn: (m) => calls.push(`warn ${m}`),
    };
    return { d, calls };
  };

  it('exits with the code when nothing waits in the thread pool', () => {
    const { d, calls } = deps(0);
    endProcess(130, d);
    expect(calls).toEqual(['exit 130']);
  });

  it('gives a request that finishes soon (a healthy write) the time to, then exits with the code', async () => {
    let pending = 1;
    const { d, calls } = deps(0);
    d.pending = () => pending;
    setTimeout(() => (pending = 0), 100);
    endProcess(70, d, 1000);
    await sleep(300);
    expect(calls).toEqual(['exit 70']);
  });

  it('ends by the signal the code stands for when a request waits (130 SIGINT, 143 SIGTERM), else SIGKILL', () => {
    for (const [code, signal] of [
      [130, 'SIGINT'],
      [143, 'SIGTERM'],
      [2, 'SIGKILL'],
    ] as const) {
      const { d, calls } = deps(1);
      endProcess(code, d, 0);
      expect(calls.at(-1)).toBe(`raise ${signal}`);
      expect(calls[0]).toMatch(
        /^warn 1 file system request\(s\) still waiting \(a hung mount\?\): ending by SIG/,
      );
    }
  });
});

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** The CLI from source, with `env`; `act` is called with the child once it runs. */
function cli(
  args: string[],
  env: NodeJS.ProcessEnv,
  act: (child: ReturnType<typeof spawn>, stderr: () => string) => Promise<void>,
): Promise<Ended> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', preload, path.join(root, 'src/cli.ts'), ...args],
    { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const ended = new Promise<Ended>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
  // A child that does not end must not outlive the test, nor one whose test failed.
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return act(child, () => stderr)
    .then(
      () => ended,
      (e: unknown) => {
        child.kill('SIGKILL');
        throw e;
      },
    )
    .finally(() => clearTimeout(guard));
}

/**
 * A bin dir whose tools answer --version, and whose pgbench, once started, ignores SIGINT and SIGTERM and
 * does not answer for a minute (then it ends by itself, so that a failed test leaves nothing running).
 */
async function hangingBinDir(): Promise<{ dir: string; started: string }> {
  const dir = path.join(tmp(), 'bin');
  // Written by pgbench, which runs as the run-as user when the tests run as root.
  const marks = path.join(tmp(), 'marks');
  await mkdir(marks, { recursive: true });
  await chmod(marks, 0o777);
  const started = path.join(marks, 'pgbench-started');
  await mkdir(dir, { recursive: true });
  for (const tool of ['postgres', 'initdb', 'pg_ctl', 'psql']) {
    await writeFile(path.join(dir, tool), `#!/bin/sh\necho "${tool} (PostgreSQL) 15.1"\n`);
    await chmod(path.join(dir, tool), 0o755);
  }
  await writeFile(
    path.join(dir, 'pgbench'),
    `#!/bin/sh\ntrap '' INT TERM\ntouch '${started}'\nfor i in $(seq 60); do sleep 1; done\n`,
  );
  await chmod(path.join(dir, 'pgbench'), 0o755);
  return { dir, started };
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(50);
  }
}

describe('the CLI ends whatever is pending', () => {
  it.each([
    ['nothing else waits', false],
    ['a read waits in the thread pool for ever (a hung mount)', true],
  ])(
    'stuck on a client that never answers, two SIGINTs end it within 5 s with 130: %s',
    async (_name, stuckRead) => {
      const { dir, started } = await hangingBinDir();
      const env: NodeJS.ProcessEnv = {};
      if (stuckRead) {
        env.PGPERF_TEST_STUCK_READ = path.join(tmp(), 'never.fifo');
        if (!existsSync(env.PGPERF_TEST_STUCK_READ)) execFileSync('mkfifo', [env.PGPERF_TEST_STUCK_READ]);
      }
      let secondAt = 0;
      const out = path.join(tmp(), `out-${stuckRead}`);
      const ended = await cli(
        ['run', '--arm', `base=${dir}`, '--arm', `head=${dir}`, '--workload', 'smoke', '--out', out],
        env,
        async (child, stderr) => {
          await until(() => existsSync(started), 30_000);
          child.kill('SIGINT');
          await until(() => /SIGINT: stopping/.test(stderr()), 5000);
          child.kill('SIGINT');
          secondAt = Date.now();
        },
      );
      const took = Date.now() - secondAt;
      expect(ended.stderr).toMatch(/SIGINT again: stopping the servers and exiting now/);
      expect(took).toBeLessThan(5000);
      // A shell reports either as 130.
      if (stuckRead) {
        expect(ended).toMatchObject({ code: null, signal: 'SIGINT' });
        expect(ended.stderr).toMatch(
          /file system request\(s\) still waiting \(a hung mount\?\): ending by SIGINT/,
        );
      } else {
        expect(ended).toMatchObject({ code: 130, signal: null });
      }
      execFileSync('rm', ['-f', started]);
    },
    90_000,
  );

  it('a command done while a read still waits in the thread pool ends within seconds, saying why', async () => {
    const fifo = path.join(tmp(), 'never-version.fifo');
    execFileSync('mkfifo', [fifo]);
    const start = Date.now();
    const ended = await cli(['--version'], { PGPERF_TEST_STUCK_READ: fifo }, async () => {});
    expect(Date.now() - start).toBeLessThan(30_000);
    expect(ended.stderr).toMatch(/^\d+\.\d+\.\d+/);
    expect(ended.stderr).toMatch(/ending by SIGKILL rather than waiting for it \(exit status 137, not 0\)/);
    expect(ended.signal).toBe('SIGKILL');
  }, 60_000);
});
