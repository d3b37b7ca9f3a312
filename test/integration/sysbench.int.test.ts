/**
 * sysbench through the real run loop: Debian's sysbench 1.0.20 against private PostgreSQL servers,
 * two arms interleaved, short runs on tiny tables (apt-get install sysbench; scripts/setup.sh does).
 */
import { chmod, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgCluster } from '../../src/postgres/cluster/cluster.js';
import { resolveRunAs } from '../../src/postgres/cluster/run-as.js';
import { compareRun } from '../../src/core/compare/analysis/compare-run.js';
import { loadWorkloadFile, parseWorkload } from '../../src/drivers/load-workload.js';
import type { SysbenchWorkload, Workload } from '../../src/drivers/workload.js';
import { sysbenchDriver } from '../../src/drivers/sysbench/sysbench-driver.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { runBenchmark, type RunRequest } from '../../src/run/run-loop.js';
import { memoryLogger, type Logger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';
import { resolveAnalysis } from '../../src/core/compare/analysis/recorded-analysis.js';
import { fileSink } from '../../src/run/sink.js';

const binDir = installedBinDir();
const workloadsDir = new URL('../../workloads/', import.meta.url).pathname;
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-sysbench-'));
  await chmod(tmp, 0o755); // the run-as user must reach the clusters inside
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

function request(name: string, workloads: Workload[], extra: Partial<RunRequest> = {}): RunRequest {
  return {
    arms: [
      { label: 'base', binDir, settings: {} },
      { label: 'head', binDir, settings: { synchronous_commit: 'off' } },
    ],
    workloads,
    order: 'random',
    seed: 11,
    sink: fileSink(path.join(tmp, name, 'results.json')),
    analysis: resolveAnalysis(),
    logsDir: path.join(tmp, name, 'logs'),
    dataChecksums: false,
    tmpDir: tmp,
    ...extra,
  };
}

const deps = (logger: Logger, searchPath = process.env.PATH ?? '') => ({
  runner: nodeProcessRunner,
  logger,
  searchPath,
});

function sysbench(text: string): SysbenchWorkload {
  const w = parseWorkload(text, 'inline.yml');
  if (w.tool !== 'sysbench') throw new Error('expected a sysbench workload');
  return w;
}

/** Queries per transaction of each script with sysbench's default options. */
const QUERIES_PER_TRANSACTION: Record<string, number> = {
  oltp_read_only: 16,
  oltp_read_write: 20,
  oltp_write_only: 6,
  oltp_point_select: 1,
  oltp_update_index: 1,
  oltp_update_non_index: 1,
  oltp_insert: 1,
};

/** Nothing of a run is left: no process mentions the temp dir, no cluster directory remains in it. */
async function expectNothingLeft(): Promise<void> {
  expect(processesMentioning(tmp)).toEqual([]);
  expect((await readdir(tmp)).filter((d) => d.startsWith('pgperf-'))).toEqual([]);
}

describe('sysbench through runBenchmark (real PostgreSQL and sysbench)', () => {
  it('runs every shipped script, and the other OLTP scripts, on both arms sharing one data set', async () => {
    const shipped = await Promise.all(
      (await readdir(workloadsDir))
        .filter((f) => /^sysbench-.*\.yml$/.test(f) && f !== 'sysbench-smoke.yml')
        .map((f) => loadWorkloadFile(path.join(workloadsDir, f))),
    );
    const template = shipped[0] as SysbenchWorkload;
    const others = (['oltp_update_index', 'oltp_update_non_index', 'oltp_insert'] as const).map((script) => ({
      ...template,
      name: `sysbench-${script}`,
      script,
    }));
    // Tiny and short: the point is that each script runs and parses, not what it measures.
    const workloads = [...shipped, ...others].map((w) => ({
      ...w,
      tables: 2,
      tableSize: 1000,
      clients: [2],
      duration: 1,
      warmup: 0,
      rounds: 1,
    }));
    expect(workloads.map((w) => (w as SysbenchWorkload).script).sort()).toEqual(
      Object.keys(QUERIES_PER_TRANSACTION).sort(),
    );

    const logger = memoryLogger();
    const req = request('scripts', workloads);
    const result = await runBenchmark(req, deps(logger));

    expect(result.status).toBe('complete');
    expect(result.clients).toEqual([{ tool: 'sysbench', binDir: '/usr/bin', version: 'sysbench 1.0.20' }]);
    expect(result.samples).toHaveLength(14); // 7 workloads x 1 cell x 2 arms x 1 round
    for (const s of result.samples) {
      const w = workloads.find((x) => x.name === s.workload) as SysbenchWorkload;
      expect(s.status, `${s.workload} ${s.arm}: ${s.failureReason}`).toBe('ok');
      expect(s.metrics.tps).toBeGreaterThan(0);
      expect(s.metrics.qps).toBeGreaterThanOrEqual(s.metrics.tps!);
      expect(s.metrics.latencyAvgMs).toBeGreaterThan(0);
      expect(s.metrics.latencyPctMs).toBeGreaterThanOrEqual(s.metrics.latencyAvgMs! * 0.5);
      expect(s.counts.transactions).toBeGreaterThan(0);
      expect(s.counts.errors).toBe(0);
      if (s.counts.ignoredErrors === 0) {
        expect(s.counts.queries! / s.counts.transactions!).toBe(QUERIES_PER_TRANSACTION[w.script]);
      }
      expect(s.command[0]).toBe('/usr/bin/sysbench');
      expect(s.command.slice(1, 3)).toEqual([w.script, '--db-driver=pgsql']);
      expect(s.command).toContain(`--rand-seed=${s.randomSeed}`);
      expect(s.command).toEqual(
        expect.arrayContaining([
          '--threads=2',
          '--time=1',
          '--rand-type=uniform',
          '--db-ps-mode=auto',
          'run',
        ]),
      );
      // Over the cluster's private unix-socket directory, as its trusted superuser.
      expect(s.command.find((a) => a.startsWith('--pgsql-host='))).toMatch(
        new RegExp(`^--pgsql-host=${tmp}/pgperf-${s.arm}-[^/]+/socket$`),
      );
      expect(s.command).toContain('--pgsql-user=postgres');
    }
    // One data set: each arm's cluster was loaded once, in parallel with two threads.
    expect(logger.lines.filter((l) => /: loaded 2 tables x 1000 rows \(2 threads, /.test(l))).toHaveLength(2);
    expect((await readdir(req.logsDir!)).sort()).toEqual(['base.server.log', 'head.server.log']);
    await expectNothingLeft();
  });

  it('runs sysbench and pgbench through the same interleaved loop, and compares TPS, QPS and latency', async () => {
    const smoke = await loadWorkloadFile(path.join(workloadsDir, 'sysbench-smoke.yml'));
    const sb = { ...smoke, tableSize: 500, duration: 2, rounds: 2 };
    const pg = parseWorkload(
      'name: pg-tiny\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [2]\nduration: 1\nwarmup: 0\nrounds: 2\n',
      'pg.yml',
    );
    const logger = memoryLogger();
    const req = request('mixed', [pg, sb]);
    const result = await runBenchmark(req, deps(logger));

    expect(result.status).toBe('complete');
    expect(result.clients).toEqual([
      { tool: 'pgbench', binDir, version: expect.stringMatching(/^pgbench \(PostgreSQL\) \d+/) },
      { tool: 'sysbench', binDir: '/usr/bin', version: 'sysbench 1.0.20' },
    ]);
    // 3 cells (pg-tiny@2, sysbench-smoke@1, sysbench-smoke@2) x 2 arms x 2 rounds, all usable.
    expect(result.samples).toHaveLength(12);
    expect(result.samples.every((s) => s.status === 'ok')).toBe(true);
    // Within a round, both arms of a cell run back to back, whatever the tool.
    const measured = result.plan.executed.filter((r) => r.kind === 'measured');
    for (let i = 0; i < measured.length; i += 2) {
      expect(`${measured[i]!.workload}@${measured[i]!.clients}`).toBe(
        `${measured[i + 1]!.workload}@${measured[i + 1]!.clients}`,
      );
      expect(measured[i]!.arm).not.toBe(measured[i + 1]!.arm);
    }
    // The 1-second warm-up of the sysbench cells, once per arm and cell; pgbench has none.
    expect(result.plan.executed.filter((r) => r.kind === 'warmup').map((r) => r.workload)).toEqual(
      Array(4).fill('sysbench-smoke'),
    );
    // Same seed per round for both arms and both tools.
    for (const round of [1, 2]) {
      expect(new Set(result.samples.filter((s) => s.round === round).map((s) => s.randomSeed)).size).toBe(1);
    }
    for (const s of result.samples.filter((x) => x.workload === 'sysbench-smoke')) {
      expect(s.command[0]).toBe('/usr/bin/sysbench');
      expect(s.command).toContain(`--threads=${s.clients}`);
      expect(s.metrics.qps).toBeCloseTo(s.metrics.tps! * 20, -2);
      expect(s.progress.length).toBeGreaterThanOrEqual(1);
      for (const p of s.progress) {
        expect(p.tps).toBeGreaterThan(0);
        expect(p.latencyPctMs).toBeGreaterThan(0);
        expect(p.latencyAvgMs).toBeUndefined();
      }
    }
    for (const s of result.samples.filter((x) => x.workload === 'pg-tiny')) {
      expect(s.command[0]).toBe(path.join(binDir, 'pgbench'));
      expect(s.counts.processed).toBeGreaterThan(0);
    }
    // Two data sets (pgbench, sysbench): one cluster each per arm.
    expect((await readdir(req.logsDir!)).sort()).toEqual([
      'base-pg-tiny.server.log',
      'base-sysbench-smoke.server.log',
      'head-pg-tiny.server.log',
      'head-sysbench-smoke.server.log',
    ]);
    const onDisk = JSON.parse(await readFile(req.sink.description, 'utf8')) as RunResult;
    expect(onDisk).toEqual(JSON.parse(JSON.stringify(result)));

    // The statistics read sysbench's metrics like pgbench's: TPS, QPS, and the percentile latency.
    for (const metric of ['tps', 'qps', 'latencyPctMs'] as const) {
      const comparison = compareRun(result, { metric });
      expect(comparison.better).toBe(metric === 'latencyPctMs' ? 'lower' : 'higher');
      const cells = comparison.comparisons[0]!.cells;
      expect(cells.map((c) => c.id).sort()).toEqual(['pg-tiny@2', 'sysbench-smoke@1', 'sysbench-smoke@2']);
      const cell = cells.find((c) => c.id === 'sysbench-smoke@2')!;
      expect(cell.base.n).toBe(2);
      expect(cell.head.n).toBe(2);
      expect(cell.base.median).toBeGreaterThan(0);
    }
    await expectNothingLeft();
  });

  it('a prepare that fails stops the run with sysbench output and the server log tail, leaving nothing running', async () => {
    // CREATE TABLE has nowhere to go when search_path names no existing schema. With two load threads
    // sysbench prints FATAL lines and exits 0 (with one it exits 1): pgperf fails it either way.
    const w = sysbench(
      'name: no-schema\ntool: sysbench\nscript: oltp_read_only\ntables: 2\ntableSize: 100\nclients: [2]\nduration: 1\nwarmup: 0\nrounds: 1\nsettings: {search_path: nosuch}\n',
    );
    const req = request('prepare-fails', [w]);
    const err = (await runBenchmark(req, deps(memoryLogger())).then(
      () => new Error('the run succeeded'),
      (e: unknown) => e,
    )) as Error;
    expect(err.name).toBe('UserError');
    expect(err.message).toMatch(
      /^workload no-schema, arm base: sysbench oltp_read_only prepare failed \((?:FATAL|exit code 1): PQexec\(\) failed: 7 no schema has been selected to create in\)\. sysbench output:\n/,
    );
    expect(err.message).toContain("state = '3F000'");
    expect(err.message).toMatch(
      /\nServer log tail:\n(.*\n)*.*ERROR: {2}no schema has been selected to create in/,
    );
    const onDisk = JSON.parse(await readFile(req.sink.description, 'utf8')) as RunResult;
    expect(onDisk.status).toBe('failed');
    expect(onDisk.stopReason).toContain('prepare failed');
    expect(onDisk.samples).toEqual([]);
    await expectNothingLeft();
  });

  it('refuses bad input before any server starts', async () => {
    for (const [text, message] of [
      ['script: oltp_readonly\ntableSize: 10\nclients: [1]\n', 'script: expected one of "oltp_read_only"'],
      ['script: oltp_read_only\ntableSize: 0\nclients: [1]\n', 'tableSize: expected a number > 0, got 0'],
      [
        'script: oltp_read_only\ntableSize: 10\nclients: []\n',
        'clients: expected at least 1 entries, got []',
      ],
    ]) {
      expect(() => parseWorkload(`name: bad\ntool: sysbench\n${text}`, 'bad.yml')).toThrow(message);
    }

    // sysbench missing: found before any cluster exists.
    const w = sysbench('name: nosb\ntool: sysbench\nscript: oltp_point_select\nclients: [1]\n');
    await expect(
      runBenchmark(request('no-sysbench', [w]), deps(memoryLogger(), path.join(tmp, 'empty-bin'))),
    ).rejects.toThrow('workload nosb: sysbench not found: install it with `apt-get install sysbench`');
    await expectNothingLeft();
  });

  it('cleanup drops the tables prepare created (for clusters that outlive a run)', async () => {
    const logger = memoryLogger();
    const runAs = await resolveRunAs(undefined, deps(logger));
    const cluster = await PgCluster.create(
      { label: 'cleanup', binDir, parentDir: tmp, conf: { maxClients: 4, workloadSettings: {} }, runAs },
      deps(logger),
    );
    try {
      await cluster.start();
      const w = sysbench(
        'name: c\ntool: sysbench\nscript: oltp_insert\ntables: 3\ntableSize: 50\nclients: [2]\n',
      );
      const driver = sysbenchDriver({
        workload: w,
        cpuCount: 2,
        runner: nodeProcessRunner,
        logger,
        searchPath: process.env.PATH ?? '',
      });
      await driver.prepare(cluster);
      const tables =
        "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE tablename LIKE 'sbtest%'";
      expect((await cluster.psql(tables)).trim()).toBe('sbtest1,sbtest2,sbtest3');
      expect((await cluster.psql('SELECT count(*) FROM sbtest3')).trim()).toBe('50');
      await driver.cleanup!(cluster);
      expect((await cluster.psql(tables)).trim()).toBe('');
    } finally {
      await cluster.destroy();
    }
    await expectNothingLeft();
  });
});
