/**
 * Faults with real servers (the machine's PostgreSQL as both arms):
 * - SIGINT once, twice, and SIGTERM to a running `node dist/cli.js run`: exit 130/143, no postgres
 *   left, the temp dir emptied, the samples so far kept in results.json, which says 'interrupted';
 * - kill -9 of a postmaster while pgbench runs against it: the sample is recorded failed with the
 *   server log tail, the cluster is restarted, the run continues and completes;
 * - a CHECKPOINT that fails (the server's pg_logical/snapshots made unreadable to it): every attempt is
 *   recorded failed with the reason, retried, given up, and the run still completes;
 * - the disk under --out runs full mid-run (a small tmpfs, filled after a few runs): `pgperf run` stops
 *   with an error naming results.json and ENOSPC, exit 3, no postgres left, every sample kept in a
 *   results.json that parses, says 'failed' and that `pgperf compare` reads. Needs root (mount); without
 *   it the test is reported skipped with the reason.
 */
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statfsSync,
  writeFileSync,
} from 'node:fs';
import { chmod, mkdtemp, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { runBenchmark } from '../../src/run/run-loop.js';
import { memoryLogger, type Logger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { installedBinDir, killProcessesMentioning, processesMentioning } from '../../testkit/postgres.js';
import {
  onlyResults,
  onlyResultsFile,
  runCli,
  sameInstallRun,
  sameInstallRunArgs,
  SMOKE,
  type Ran,
} from '../helpers/cli.js';
import { sameInstallRequest } from '../helpers/run-request.js';
import { useTmpDir } from '../helpers/tmp-dir.js';

const binDir = installedBinDir();
// A failed test may leave a server behind: it is stopped by its own pid before the directory is removed.
const tmp = useTmpDir('pgperf-it-faults-', { killLeftovers: true });

const selectOnly = (retries: number, duration = 2) =>
  parseWorkload(
    [
      'name: faults',
      'tool: pgbench',
      'builtin: select-only',
      'scale: 1',
      'clients: [1]',
      `duration: ${duration}`,
      'warmup: 0',
      'rounds: 3',
      `retries: ${retries}`,
      'settings: { shared_buffers: 32MB }',
    ].join('\n'),
    'faults.yml',
  );

/** A logger that also calls `onLine` for every line (to act at a point of the run). */
function watchingLogger(onLine: (line: string) => void): Logger & { lines: string[] } {
  const inner = memoryLogger();
  const wrap =
    (f: (m: string) => void) =>
    (m: string): void => {
      f(m);
      onLine(m);
    };
  return { ...inner, info: wrap(inner.info), warn: wrap(inner.warn), error: wrap(inner.error) };
}

/** The cluster directories of an arm under a parent directory. */
const clusterDirs = (parent: string, arm: string) =>
  readdirSync(parent)
    .filter((d) => d.startsWith(`pgperf-${arm}-`))
    .map((d) => path.join(parent, d));

describe('faults with real servers', () => {
  it('kill -9 of a postmaster mid-run: sample failed with the log tail, restarted, run completes', async () => {
    const parent = await mkdtemp(path.join(tmp(), 'kill9-'));
    await chmod(parent, 0o755);
    let killed: number | undefined;
    let poller: NodeJS.Timeout | undefined;
    const logger = watchingLogger((line) => {
      if (!line.startsWith('plan:') || poller) return;
      const [headDir] = clusterDirs(parent, 'head');
      poller = setInterval(() => {
        // pgbench is connected to head's socket: kill head's postmaster under it.
        if (killed || processesMentioning(path.join(headDir!, 'socket')).length === 0) return;
        const pid = Number(
          readFileSync(path.join(headDir!, 'data', 'postmaster.pid'), 'utf8').split('\n')[0],
        );
        process.kill(pid, 'SIGKILL');
        killed = pid;
      }, 50);
    });
    const resultsFile = path.join(parent, 'results.json');
    let result: RunResult;
    try {
      result = await runBenchmark(sameInstallRequest(binDir, parent, [selectOnly(2, 3)], { seed: 7 }), {
        runner: nodeProcessRunner,
        logger,
      });
    } finally {
      clearInterval(poller);
    }
    expect(killed).toBeDefined();
    expect(result.status).toBe('complete');
    const failed = result.samples.filter((s) => s.status === 'failed');
    expect(failed.length).toBeGreaterThanOrEqual(1);
    expect(failed[0]!.arm).toBe('head');
    expect(failed[0]!.failureReason).toMatch(
      new RegExp(`the server died \\(postmaster pid ${killed} is gone\\); server log tail:`),
    );
    expect(failed[0]!.failureReason).toMatch(/terminated by signal 9|was terminated|database system/i);
    // Every planned cell-arm-round still got its ok sample, after the restart.
    const okHead = result.samples.filter((s) => s.arm === 'head' && s.status === 'ok');
    expect(okHead).toHaveLength(3);
    expect(logger.lines.join('\n')).toMatch(
      /the server died during a run; restarting it \(restart 1 of at most 3\)/,
    );
    const onDisk = JSON.parse(await readFile(resultsFile, 'utf8')) as RunResult;
    expect(onDisk.samples).toHaveLength(result.samples.length);
    expect(processesMentioning(parent)).toEqual([]);
    expect(await readdir(parent)).toEqual(['results.json']);
  });

  it('a failing CHECKPOINT: attempts recorded failed with the reason, retried, the run completes', async () => {
    const parent = await mkdtemp(path.join(tmp(), 'checkpoint-'));
    await chmod(parent, 0o755);
    const logger = watchingLogger((line) => {
      if (!line.startsWith('plan:')) return;
      // The checkpointer reads pg_logical/snapshots; unreadable, every CHECKPOINT on head fails.
      const [headDir] = clusterDirs(parent, 'head');
      chmodSync(path.join(headDir!, 'data', 'pg_logical', 'snapshots'), 0o000);
    });
    const result = await runBenchmark(
      sameInstallRequest(binDir, parent, [{ ...selectOnly(1), rounds: 2 }], { seed: 3 }),
      { runner: nodeProcessRunner, logger },
    );
    expect(result.status).toBe('complete');
    const head = result.samples.filter((s) => s.arm === 'head');
    expect(head).toHaveLength(4); // 2 rounds x (attempt + 1 retry)
    for (const s of head) {
      expect(s.status).toBe('failed');
      expect(s.failureReason).toMatch(/^pre-run maintenance failed: .*checkpoint request failed/);
    }
    expect(result.samples.filter((s) => s.arm === 'base' && s.status === 'ok')).toHaveLength(2);
    expect(result.warnings.join('\n')).toMatch(/failed 2 times, giving up this run/);
    expect(logger.lines.join('\n')).not.toMatch(/internal error/);
    expect(processesMentioning(parent)).toEqual([]);
    expect(await readdir(parent)).toEqual(['results.json']);
  });

  it.each([
    ['default_transaction_read_only', 'on'],
    ['statement_timeout', '1'],
  ])(
    "a setting that makes pgperf's own set-up queries fail (%s=%s) is a user error naming it, not an internal one",
    async (name, value) => {
      const parent = await mkdtemp(path.join(tmp(), 'setup-query-'));
      await chmod(parent, 0o755);
      const ran = await runCli(
        sameInstallRunArgs(binDir, parent, SMOKE, path.join(parent, 'out'), [
          '--set',
          `head:${name}=${value}`,
          '--no-instructions', // the timed rounds' failure is the question
        ]),
        { cwd: tmp(), source: true },
      );
      expect(ran.stderr).not.toMatch(/internal error/);
      expect(ran.stderr).toMatch(/arm head.*failed.*check --set and the workload's settings/s);
      expect(ran.code).toBe(2); // nothing was measured
      expect(processesMentioning(parent)).toEqual([]);
    },
  );
});

/** Runs the built CLI; sends `signals` (in order, `gapMs` apart) once the first measured run is logged. */
function runAndSignal(args: string[], signals: NodeJS.Signals[], gapMs = 300): Promise<Ran> {
  let sent = false;
  return runCli(args, {
    cwd: tmp(),
    onStderr: (stderr, child) => {
      if (sent || !/round \d+\/\d+/.test(stderr)) return;
      sent = true;
      signals.forEach((s, i) => setTimeout(() => child.kill(s), i * gapMs));
    },
    // Never outlive the test: a run that did not stop is killed (and then fails the assertions).
    killAfterMs: 90_000,
  });
}

describe('signals to a running `pgperf run` (dist/cli.js)', () => {
  const runArgs = (parent: string, out: string) =>
    sameInstallRun(binDir, { workload: SMOKE, rounds: 20, duration: 2, out, tmpDir: parent });

  it.each([
    { name: 'SIGINT once', signals: ['SIGINT'] as NodeJS.Signals[], code: 130 },
    { name: 'SIGINT twice', signals: ['SIGINT', 'SIGINT'] as NodeJS.Signals[], code: 130 },
    { name: 'SIGTERM', signals: ['SIGTERM'] as NodeJS.Signals[], code: 143 },
  ])('$name: exit $code, no server left, temp dir emptied, samples kept', async ({ signals, code }) => {
    const parent = await mkdtemp(path.join(tmp(), 'sig-'));
    await chmod(parent, 0o755);
    const out = path.join(parent, 'out');
    const ran = await runAndSignal(runArgs(parent, out), signals);
    expect(ran.stderr).not.toMatch(/internal error/);
    expect(ran.code).toBe(code);
    expect(processesMentioning(parent)).toEqual([]);
    expect((await readdir(parent)).filter((d) => d.startsWith('pgperf-'))).toEqual([]);
    const result = await onlyResults(out);
    // A forced exit (second signal) finishes the document too: interrupted, the samples kept, no reserve or
    // temp file beside it (it used to stay 'running' with both).
    expect(result.status).toBe('interrupted');
    expect(result.samples.length).toBeGreaterThanOrEqual(1);
    const runDir = path.dirname(await onlyResultsFile(out));
    expect((await readdir(runDir)).filter((f) => f.startsWith('.'))).toEqual([]);
    expect(ran.stdout).toContain(`results (interrupted) in ${path.join(runDir, 'results.json')}`);
  });
});

/**
 * Whether this process may mount a tmpfs (root, and a kernel and container that allow it): a tiny one is
 * mounted and unmounted at once. The reason is shown in the name of a test skipped for lack of it.
 */
function probeTmpfsMount(): { ok: true } | { ok: false; why: string } {
  let dir: string | undefined;
  try {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pgperf-mount-probe-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'pipe' });
    execFileSync('umount', [dir], { stdio: 'pipe' });
    return { ok: true };
  } catch (e) {
    const stderr = (e as { stderr?: Buffer }).stderr?.toString().trim();
    return { ok: false, why: `cannot mount a tmpfs: ${(stderr || errorText(e)).split('\n')[0]}` };
  } finally {
    if (dir) rmdirSync(dir);
  }
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

const tmpfs = probeTmpfsMount();

interface RanFull {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The results document as it was on disk when the disk was filled. */
  beforeFull?: RunResult;
}

/**
 * Runs `pgperf run` and, once `afterRuns` measured runs are logged (each logged after its write), fills
 * the disk at `mount` completely: a filler file sized from statfs, then 4 kB appends until ENOSPC.
 */
async function runAndFillDisk(args: string[], mount: string, afterRuns: number): Promise<RanFull> {
  let beforeFull: RunResult | undefined;
  const onStderr = (stderr: string): void => {
    if (beforeFull || (stderr.match(/^\[\d+\/\d+\] round \d+\/\d+ /gm) ?? []).length < afterRuns) return;
    const resultsFile = /^results: (.+)$/m.exec(stderr)![1]!;
    beforeFull = JSON.parse(readFileSync(resultsFile, 'utf8')) as RunResult;
    const filler = path.join(mount, 'filler');
    const st = statfsSync(mount);
    writeFileSync(filler, Buffer.alloc(st.bavail * st.bsize));
    try {
      for (;;) appendFileSync(filler, Buffer.alloc(4096));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
    }
  };
  // Never outlive the test: a run that did not stop is killed (and then fails the assertions).
  const ran = await runCli(args, { cwd: tmp(), onStderr, killAfterMs: 100_000 });
  return { ...ran, beforeFull };
}

describe('a full disk under --out (tmpfs)', () => {
  let mount: string | undefined;
  afterAll(() => {
    if (!mount) return;
    killProcessesMentioning(mount);
    execFileSync('umount', [mount], { stdio: 'pipe' });
    rmdirSync(mount);
  });

  it.skipIf(!tmpfs.ok)(
    `ENOSPC mid-run: clear error naming results.json and ENOSPC, exit 3, no server left, every sample kept and readable by compare${tmpfs.ok ? '' : ` (skipped: ${tmpfs.why})`}`,
    async () => {
      const parent = await mkdtemp(path.join(tmp(), 'full-'));
      await chmod(parent, 0o755);
      mount = mkdtempSync(path.join(tmp(), 'out-tmpfs-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mount], { stdio: 'pipe' });
      const out = path.join(mount, 'out');
      const args = { workload: SMOKE, rounds: 20, duration: 1, seed: 1, noStore: true, out, tmpDir: parent };
      const ran = await runAndFillDisk(sameInstallRun(binDir, args), mount, 2);
      expect(ran.beforeFull, `the disk was never filled; stderr:\n${ran.stderr}`).toBeDefined();
      const [runDir] = await readdir(out);
      const resultsFile = path.join(out, runDir!, 'results.json');

      // A clear error naming the file and the errno; no crash, no stack; "the run could not complete".
      expect(ran.stderr).toContain(
        `error: stopping the run, keeping the samples so far: could not write ${resultsFile}: ENOSPC (no space left on device)`,
      );
      expect(ran.stderr).not.toMatch(/internal error/);
      expect(ran.stderr + ran.stdout).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
      expect(ran.code).toBe(3);

      // The servers are stopped and their directories removed.
      expect(processesMentioning(parent)).toEqual([]);
      expect((await readdir(parent)).filter((d) => d.startsWith('pgperf-'))).toEqual([]);

      // Every sample written before the disk was full is intact, and the one whose write failed is kept.
      const result = JSON.parse(await readFile(resultsFile, 'utf8')) as RunResult;
      const before = ran.beforeFull!.samples;
      expect(before.length).toBeGreaterThanOrEqual(2);
      expect(result.samples.slice(0, before.length)).toEqual(before);
      expect(result.samples).toHaveLength(before.length + 1);
      expect(result.status).toBe('failed');
      expect(result.stopReason).toMatch(`could not write ${resultsFile}: ENOSPC`);
      // Neither the sink's reserve nor a temp file is left; the decision landed beside the results.
      expect((await readdir(path.join(out, runDir!))).filter((f) => f.startsWith('.'))).toEqual([]);
      const decision = JSON.parse(await readFile(path.join(out, runDir!, 'decision.json'), 'utf8')) as {
        outcome: string;
      };
      expect(decision.outcome).toBe('incomplete');

      const compared = await runCli(['compare', resultsFile], { cwd: tmp() });
      expect(compared.stderr).not.toMatch(/internal error/);
      expect(compared.code).toBe(3);
      expect(compared.stdout).toMatch(/Incomplete: the run failed \(could not write .*ENOSPC/);
    },
  );
});
