import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import type { SysbenchWorkload } from '../../src/drivers/workload.js';
import type { BenchTarget } from '../../src/drivers/common/driver.js';
import {
  cleanupArgs,
  dataShape,
  measureArgs,
  prepareArgs,
  prepareThreads,
} from '../../src/drivers/sysbench/sysbench-command.js';
import { sysbenchDriver } from '../../src/drivers/sysbench/sysbench-driver.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import type { ProcessResult, ProcessRunner, RunOptions } from '../../src/machine/os/process.js';

const connection = { host: '/tmp/s', port: 5555, user: 'postgres', database: 'pgperf' };
const CONNECTION_ARGS = [
  '--db-driver=pgsql',
  '--pgsql-host=/tmp/s',
  '--pgsql-port=5555',
  '--pgsql-user=postgres',
  '--pgsql-db=pgperf',
];

function sysbenchWorkload(extra = ''): SysbenchWorkload {
  const w = parseWorkload(
    `name: w\ntool: sysbench\nscript: oltp_read_write\ntables: 8\ntableSize: 25000\nclients: [1, 4, 16]\n${extra}`,
    'w.yml',
  );
  if (w.tool !== 'sysbench') throw new Error(`expected a sysbench workload, got ${w.tool}`);
  return w;
}

describe('sysbench command lines', () => {
  it('measured run: pgperf owns threads, time, intervals, seed, and pins rand-type, ps-mode, percentile', () => {
    const args = measureArgs({
      workload: sysbenchWorkload(),
      connection,
      clients: 16,
      durationS: 30,
      seed: 99,
    });
    expect(args).toEqual([
      'oltp_read_write',
      ...CONNECTION_ARGS,
      '--tables=8',
      '--table-size=25000',
      '--threads=16',
      '--time=30',
      '--report-interval=1',
      '--rand-type=uniform',
      '--rand-seed=99',
      '--db-ps-mode=auto',
      '--percentile=95',
      'run',
    ]);
  });

  it('passes the workload choices and extra options, the data-shape ones with the data options', () => {
    const w = sysbenchWorkload(
      'randType: special\npsMode: disable\npercentile: 99\nextraArgs: ["--range-size=10", "--secondary=on", "--skip_trx"]\n',
    );
    const args = measureArgs({ workload: w, connection, clients: 1, durationS: 5, seed: 3 });
    expect(args.join(' ')).toContain(
      '--tables=8 --table-size=25000 --secondary=on --threads=1 --time=5 --report-interval=1 ' +
        '--rand-type=special --rand-seed=3 --db-ps-mode=disable --percentile=99 --range-size=10 --skip_trx run',
    );
    expect(args.filter((a) => a === '--secondary=on')).toHaveLength(1);
    expect(prepareArgs(w, connection, 2)).toContain('--secondary=on');
  });

  it('never passes seed 0, which would make sysbench seed from the clock', () => {
    const args = measureArgs({ workload: sysbenchWorkload(), connection, clients: 1, durationS: 5, seed: 0 });
    expect(args).toContain('--rand-seed=1');
  });

  it('prepare loads the tables in parallel: min(tables, CPUs, largest thread count) threads', () => {
    expect(prepareArgs(sysbenchWorkload(), connection, 4)).toEqual([
      'oltp_read_write',
      ...CONNECTION_ARGS,
      '--tables=8',
      '--table-size=25000',
      '--threads=4',
      'prepare',
    ]);
    expect(prepareThreads(sysbenchWorkload(), 64)).toBe(8);
    expect(prepareThreads({ ...sysbenchWorkload(), tables: 1 }, 64)).toBe(1);
    expect(prepareThreads({ ...sysbenchWorkload(), clients: [1, 2] }, 64)).toBe(2);
  });

  it('cleanup drops what prepare created', () => {
    expect(cleanupArgs(sysbenchWorkload(), connection)).toEqual([
      'oltp_read_write',
      ...CONNECTION_ARGS,
      '--tables=8',
      '--table-size=25000',
      'cleanup',
    ]);
  });

  it('the data shape is the same for every OLTP script over the same tables, and differs with them', () => {
    const rw = sysbenchWorkload();
    const ro = { ...rw, script: 'oltp_read_only' as const, extraArgs: ['--range-size=5'] };
    expect(dataShape(ro)).toEqual(dataShape(rw));
    expect(dataShape(rw)).toEqual({ family: 'oltp', tables: 8, tableSize: 25000, options: [] });
    expect(dataShape({ ...rw, tableSize: 1000 })).not.toEqual(dataShape(rw));
    expect(dataShape({ ...rw, extraArgs: ['--secondary=on'] })).not.toEqual(dataShape(rw));
  });
});

/** A runner that answers like sysbench would, and records what it was asked. */
function fakeRunner(answer: (args: string[]) => Partial<ProcessResult>) {
  const calls: Array<{ command: string; args: string[]; options?: RunOptions }> = [];
  const runner: ProcessRunner = {
    async run(command, args, options) {
      calls.push({ command, args, options });
      return {
        command: [command, ...args],
        exitCode: 0,
        signal: null,
        stdout: '',
        stderr: '',
        durationMs: 1,
        timedOut: false,
        ...answer(args),
      };
    },
  };
  return { runner, calls };
}

function fakeTarget(
  psql: (sql: string) => Promise<string> = async () => '',
): BenchTarget & { sql: string[] } {
  const sql: string[] = [];
  return {
    label: 'head',
    connection,
    version: { text: 'postgres (PostgreSQL) 15.18', major: 15 },
    sql,
    async psql(s) {
      sql.push(s);
      return psql(s);
    },
    async logTail() {
      return '2026-11-22 ERROR:  no schema has been selected to create in';
    },
  };
}

const FIXTURES = new URL('../fixtures/sysbench/1.0.20-vs-15/', import.meta.url);
const fixtureText = (name: string) => readFile(new URL(name, FIXTURES), 'utf8');

describe('sysbench driver (fake runner)', () => {
  let binDir: string;
  beforeAll(async () => {
    binDir = await mkdtemp(path.join(os.tmpdir(), 'pgperf-fake-sysbench-'));
    await writeFile(path.join(binDir, 'sysbench'), '#!/bin/sh\necho "sysbench 1.0.20"\n');
    await chmod(path.join(binDir, 'sysbench'), 0o755);
  });
  afterAll(async () => {
    await rm(binDir, { recursive: true, force: true });
  });
  const driver = (runner: ProcessRunner, searchPath: string, workload = sysbenchWorkload()) =>
    sysbenchDriver({ workload, cpuCount: 2, runner, logger: memoryLogger(), searchPath });

  it('says how to install sysbench when it is not on the PATH', async () => {
    const { runner, calls } = fakeRunner(() => ({}));
    await expect(driver(runner, '/nonexistent:/also-not').client()).rejects.toThrow(
      'workload w: sysbench not found: install it with `apt-get install sysbench`',
    );
    await expect(driver(runner, '').prepare(fakeTarget())).rejects.toThrow('sysbench not found');
    expect(calls).toEqual([]);
  });

  it('finds sysbench on the PATH and reports its version and directory', async () => {
    const { runner, calls } = fakeRunner(() => ({ stdout: 'sysbench 1.0.20\n' }));
    expect(await driver(runner, `/nonexistent:${binDir}`).client()).toEqual({
      tool: 'sysbench',
      binDir,
      version: 'sysbench 1.0.20',
    });
    expect(calls[0]).toMatchObject({ command: path.join(binDir, 'sysbench'), args: ['--version'] });
    // Not the caller's directory: sysbench would pick up a ./oltp_*.lua found there first.
    expect(calls[0]!.options).toMatchObject({ cwd: '/', env: expect.objectContaining({ LC_ALL: 'C' }) });
  });

  it('a prepare that prints FATAL lines fails, although sysbench exits 0, with its output and the server log', async () => {
    const stdout = await fixtureText('prepare-failure.stdout');
    const { runner } = fakeRunner(() => ({ stdout }));
    const target = fakeTarget();
    const err = (await driver(runner, binDir)
      .prepare(target)
      .then(
        () => new Error('prepare succeeded'),
        (e: unknown) => e,
      )) as Error;
    expect(err.name).toBe('UserError');
    expect(err.message).toMatch(
      /^workload w, arm head: sysbench oltp_read_write prepare failed \(FATAL: PQexec\(\) failed: 7 no schema has been selected to create in\)\. sysbench output:\n/,
    );
    expect(err.message).toContain("state = '3F000'");
    expect(err.message).toMatch(
      /\nServer log tail:\n2026-11-22 ERROR: {2}no schema has been selected to create in$/,
    );
    expect(target.sql).toEqual([]);
  });

  it('a prepare that exits non-zero fails with the exit code and the first FATAL message', async () => {
    const stdout = await fixtureText('connection-failure.stdout');
    const { runner } = fakeRunner(() => ({ stdout, exitCode: 1 }));
    await expect(driver(runner, binDir).prepare(fakeTarget())).rejects.toThrow(
      /prepare failed \(exit code 1: Connection to database failed: .*No such file or directory\)/,
    );
  });

  it('a prepare that leaves tables short fails, naming them', async () => {
    const { runner } = fakeRunner(() => ({ stdout: 'Creating table sbtest1...\n' }));
    const w = { ...sysbenchWorkload(), tables: 3, tableSize: 100 };
    const target = fakeTarget(async () => '100,40,100\n');
    await expect(driver(runner, binDir, w).prepare(target)).rejects.toThrow(
      'prepare failed (expected 100 rows per table, found 40 in sbtest2)',
    );
    expect(target.sql).toEqual([
      "SELECT (SELECT count(*) FROM sbtest1) || ',' || (SELECT count(*) FROM sbtest2) || ',' || (SELECT count(*) FROM sbtest3)",
    ]);
    await expect(
      driver(runner, binDir, w).prepare(fakeTarget(async () => '100,100,100\n')),
    ).resolves.toBeUndefined();
  });

  it('before each run: VACUUM and CHECKPOINT, as configured', async () => {
    const { runner } = fakeRunner(() => ({}));
    const target = fakeTarget();
    await driver(runner, binDir).beforeRun(target);
    await driver(runner, binDir, sysbenchWorkload('vacuum: false\n')).beforeRun(target);
    expect(target.sql).toEqual(['VACUUM', 'CHECKPOINT', 'CHECKPOINT']);
  });

  it('a run becomes a sample: metrics, counts, progress, the exact command', async () => {
    const stdout = await fixtureText('oltp_read_write.stdout');
    const { runner, calls } = fakeRunner(() => ({ stdout }));
    const out = await driver(runner, binDir).run(fakeTarget(), { clients: 2, durationS: 3, seed: 42 });
    expect(out).toMatchObject({
      ok: true,
      metrics: { tps: 1275.46, qps: 25509.22, latencyAvgMs: 1.56, latencyPctMs: 2.97 },
      counts: { transactions: 3834, queries: 76680, ignoredErrors: 0, errors: 0 },
      exitCode: 0,
    });
    expect(out.failureReason).toBeUndefined();
    expect(out.progress.map((p) => p.tps)).toEqual([1364.97, 1092.16, 1373.66]);
    expect(out.command).toEqual([path.join(binDir, 'sysbench'), ...calls[0]!.args]);
    expect(calls[0]!.args).toContain('--rand-seed=42');
    expect(calls[0]!.options?.timeoutMs).toBe((3 + 120) * 1000);
  });

  it('a run with too many ignored errors is a failed sample that keeps its numbers', async () => {
    const stdout = await fixtureText('ignored-errors.stdout');
    const { runner } = fakeRunner(() => ({ stdout }));
    const out = await driver(runner, binDir).run(fakeTarget(), { clients: 8, durationS: 3, seed: 42 });
    expect(out.ok).toBe(false);
    expect(out.failureReason).toMatch(
      /^too many ignored errors: 198 of 3858 transaction attempts \(5\.13%\)/,
    );
    expect(out.metrics.tps).toBe(1210.72);
    expect(out.counts.ignoredErrors).toBe(198);
    expect(out.progress.map((p) => p.ignoredErrorsPerS)).toEqual([73.84, 57.38, 64.76]);
  });
});

describe('sysbench latency percentiles', () => {
  it('--histogram=on only when the workload gates on p95 or p99', () => {
    const args = (extra: string) =>
      measureArgs({ workload: sysbenchWorkload(extra), connection, clients: 1, durationS: 5, seed: 3 });
    expect(args('')).not.toContain('--histogram=on');
    expect(args('metrics: [tps, latency-avg]\n')).not.toContain('--histogram=on');
    expect(args('metrics: [p95]\n')).toContain('--histogram=on');
  });
});
