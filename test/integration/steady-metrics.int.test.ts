/**
 * Steady per-transaction metrics through the built CLI against the installed PostgreSQL and pgbench:
 * - a tpcb-like run (the same install twice) records WAL bytes, WAL records, buffer hits and backend CPU per
 *   transaction in every sample of results.json, and `pgperf compare --format json` shows them side by side;
 * - a head that writes twice the WAL per transaction (a custom script whose logical message is twice as long
 *   when head's postgresql.conf says so) is decided a regression on wal-bytes when the workload gates on it;
 * - the snapshot reads all six on the installed PostgreSQL (15) and, where the build tests left one in their
 *   cache, on a PostgreSQL 18 install;
 * - sysbench runs record them too;
 * - a snapshot that fails costs the sample its steady metrics, with a warning, never the run.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyse } from '../../src/core/compare/analysis/recorded-analysis.js';
import type { SteadyCellSummary } from '../../src/core/compare/evidence/steady-summary.js';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import { runBenchmark } from '../../src/run/run-loop.js';
import { takeStatSnapshot } from '../../src/postgres/stat-snapshot.js';
import { steadyOutcome } from '../../src/core/results/steady.js';
import { connectionArgs } from '../../src/drivers/pgbench/pgbench-command.js';
import { testCacheDir } from '../../testkit/pg-source.js';
import { fileSink } from '../../src/run/sink.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { onlyResults, onlyResultsFile, runCli, sameInstallRunArgs } from '../helpers/cli.js';
import { useTestClusters } from '../helpers/clusters.js';
import { sameInstallRequest } from '../helpers/run-request.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';

const binDir = installedBinDir();
const clusters = useTestClusters('pgperf-it-steady-');
const tmp = clusters.dir;

/** A complete PostgreSQL 18 install the build tests cached, if any (its pg_config.h says 18). */
function cachedPg18BinDir(): string | undefined {
  const installs = path.join(testCacheDir(), 'installs');
  if (!existsSync(installs)) return undefined;
  const is18 = (prefix: string) => {
    try {
      const header = readFileSync(path.join(prefix, 'include', 'pg_config.h'), 'utf8');
      return /#define PG_VERSION "18[.\d]/.test(header);
    } catch {
      return false;
    }
  };
  return readdirSync(installs)
    .sort()
    .map((d) => path.join(installs, d))
    .filter(
      (prefix) =>
        existsSync(path.join(prefix, '.complete')) && existsSync(path.join(prefix, 'bin', 'pgbench')),
    )
    .find(is18)
    ?.concat('/bin');
}

const pgperf = (args: string[]) => runCli(args, { cwd: tmp() });

const runArgs = (workload: string, out: string, extra: string[] = []) =>
  sameInstallRunArgs(binDir, tmp(), workload, out, extra);

describe.each([
  ['installed', binDir],
  ['PostgreSQL 18 (build cache)', cachedPg18BinDir()],
])('a counter snapshot around a tpcb-like run, %s', (_name, bin) => {
  it.skipIf(bin === undefined)(
    'reads WAL, buffers and backend CPU, all above 0',
    async () => {
      const cluster = await clusters.create('snap', bin!, { maxClients: 4, workloadSettings: {} });
      try {
        await cluster.start();
        const { connection } = cluster;
        const pgbench = (args: string[]) =>
          nodeProcessRunner.run(path.join(bin!, 'pgbench'), [
            ...args,
            ...connectionArgs(connection),
            connection.database,
          ]);
        expect((await pgbench(['-i', '-s', '1', '-q'])).exitCode).toBe(0);
        await cluster.psql('CHECKPOINT');
        const before = await takeStatSnapshot(cluster.connection);
        const ran = await pgbench(['-n', '-c', '2', '-T', '2']);
        expect(ran.exitCode, ran.stderr).toBe(0);
        const after = await takeStatSnapshot(cluster.connection);
        const transactions = Number(/actually processed: (\d+)/.exec(ran.stdout)?.[1]);
        const out = steadyOutcome(before, after, transactions)!;
        // Only what this server's version does not have: before 16, pg_stat_io. Read time is left out
        // without a word while track_io_timing is off (a setting, not a gap).
        const expectedAbsent: string[] = [];
        if (before.serverVersionNum < 160000)
          expectedAbsent.push('I/O operations (pg_stat_io: PostgreSQL 16+)');
        expect(out.record.deltas.blkReadTimeMs).toBeUndefined();
        expect(out.record.unavailable).toEqual(expectedAbsent);
        if (before.serverVersionNum >= 160000) expect(out.record.deltas.ioReads).toBeGreaterThanOrEqual(0);
        // Right after a checkpoint, tpcb-like writes full-page images and reads nothing it has not cached.
        for (const m of [
          'walBytesPerTx',
          'walRecordsPerTx',
          'walFpiPerTx',
          'bufferHitsPerTx',
          'backendCpuUsPerTx',
        ] as const) {
          expect(out.metrics[m], m).toBeGreaterThan(0);
        }
        expect(out.metrics.bufferReadsPerTx).toBeGreaterThanOrEqual(0);
        // pgbench's transactions all committed, and little else did (the snapshots' own queries).
        expect(out.record.deltas.xactCommit!).toBeGreaterThanOrEqual(transactions);
        expect(out.record.deltas.xactCommit!).toBeLessThan(transactions + 20);
      } finally {
        await cluster.destroy();
      }
    },
    600_000,
  );
});

describe('steady per-transaction metrics', () => {
  it('a tpcb-like run records WAL, buffer and CPU cost per transaction, shown by compare --format json', async () => {
    const file = path.join(tmp(), 'tpcb.yml');
    await writeFile(
      file,
      'name: tpcb\ntool: pgbench\nbuiltin: tpcb-like\nscale: 1\nclients: [2]\nduration: 2\nwarmup: 0\nrounds: 2\n',
    );
    const out = path.join(tmp(), 'out-tpcb');
    const ran = await pgperf(runArgs(file, out, ['--force']));
    // The same install twice in 2 rounds: nothing can fail the gate.
    expect(ran.code, ran.stderr).toBe(0);
    const resultsPath = await onlyResultsFile(out);
    const result = await onlyResults(out);
    expect(result.warnings.filter((w) => w.includes('steady metrics'))).toEqual([]);
    const ok = result.samples.filter((s) => s.status === 'ok');
    expect(ok).toHaveLength(4);
    for (const s of ok) {
      // Every tpcb-like transaction writes WAL (updates, an insert, a commit) and touches shared buffers.
      expect(s.metrics.walBytesPerTx).toBeGreaterThan(100);
      expect(s.metrics.walRecordsPerTx).toBeGreaterThanOrEqual(4);
      expect(s.metrics.walFpiPerTx).toBeGreaterThanOrEqual(0);
      expect(s.metrics.bufferHitsPerTx).toBeGreaterThan(5);
      expect(s.metrics.bufferReadsPerTx).toBeGreaterThanOrEqual(0);
      expect(s.metrics.backendCpuUsPerTx).toBeGreaterThan(0);
      // The denominator is pgbench's count; the server's own commit count agrees with it closely.
      expect(s.steady!.transactions).toBe(s.counts.processed);
      expect(s.steady!.deltas.walBytes! / s.steady!.transactions).toBeCloseTo(s.metrics.walBytesPerTx!, 6);
      expect(s.steady!.deltas.xactCommit!).toBeGreaterThanOrEqual(s.counts.processed!);
      expect(s.steady!.deltas.xactCommit!).toBeLessThan(s.counts.processed! + 50);
      // pg_stat_io came with PostgreSQL 16; an older server lacks only that source.
      const major = Number(/(\d+)\.\d+/.exec(result.arms[0]!.serverVersion)?.[1]);
      expect(s.steady!.unavailable).toEqual(
        major >= 16 ? [] : ['I/O operations (pg_stat_io: PostgreSQL 16+)'],
      );
    }

    const json = await pgperf(['compare', resultsPath, '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const steady = (JSON.parse(json.stdout) as { steadyMetrics: SteadyCellSummary[] }).steadyMetrics;
    expect(steady).toHaveLength(1);
    expect(steady[0]).toMatchObject({ baseline: 'base', head: 'head', cell: 'tpcb@2' });
    for (const metric of ['walBytesPerTx', 'bufferHitsPerTx', 'backendCpuUsPerTx']) {
      const row = steady[0]!.metrics.find((m) => m.metric === metric)!;
      expect(row.base, metric).toBeGreaterThan(0);
      expect(row.head, metric).toBeGreaterThan(0);
      expect(row.baseRuns).toBe(2);
    }

    // --metric takes them; the comment shows them in its details.
    const gated = await pgperf(['compare', resultsPath, '--metric', 'wal-bytes']);
    expect(gated.code, gated.stderr).toBe(0);
    expect(gated.stdout).toMatch(/compared: .*\(WAL bytes\/tx, lower is better\)/);
    const markdown = await pgperf(['compare', resultsPath, '--format', 'markdown']);
    expect(markdown.stdout).toMatch(
      /<summary>Steady per-transaction costs \(WAL, buffers, backend CPU, memory\)<\/summary>/,
    );
    expect(markdown.stdout).toMatch(/\| tpcb&#64;2 \| [\d,.]+ → [\d,.]+/);
    expect(processesMentioning(tmp())).toEqual([]);
  }, 600_000);

  it('a head writing twice the WAL per transaction is a regression on wal-bytes', async () => {
    // One logical message per transaction, 4000 bytes long times the server's pgperf_test.wal_factor (1 where
    // unset): head's postgresql.conf doubles the WAL of every transaction and changes nothing else.
    const script = path.join(tmp(), 'wal-message.sql');
    await writeFile(
      script,
      "SELECT pg_logical_emit_message(false, 'pgperf-test', repeat('x', 4000 * coalesce(current_setting('pgperf_test.wal_factor', true), '1')::int));\n",
    );
    const file = path.join(tmp(), 'wal.yml');
    await writeFile(
      file,
      'name: wal\ntool: pgbench\nscripts:\n  - file: wal-message.sql\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 8\nmetrics: [tps, wal-bytes]\n',
    );
    const out = path.join(tmp(), 'out-wal');
    const ran = await pgperf(
      runArgs(file, out, ['--set', 'head:pgperf_test.wal_factor=2', '--no-instructions']),
    );
    // The gate (default --fail-on regression) fails; the results are saved all the same.
    expect(ran.code, ran.stderr).toBe(1);
    const result = await onlyResults(out);
    expect(result.status).toBe('complete');
    const perArm = (arm: string) =>
      result.samples.filter((s) => s.arm === arm && s.status === 'ok').map((s) => s.metrics.walBytesPerTx!);
    const base = perArm('base');
    const head = perArm('head');
    expect(base).toHaveLength(8);
    expect(head).toHaveLength(8);
    for (const v of base) expect(v).toBeGreaterThan(4000);
    // Twice the message, the same record overhead: close to twice the bytes, in every run.
    const ratio = Math.min(...head) / Math.max(...base);
    expect(ratio).toBeGreaterThan(1.8);
    expect(Math.max(...head) / Math.min(...base)).toBeLessThan(2.2);

    const comparison = analyse(result);
    expect(comparison.gatedMetrics).toEqual(['tps', 'walBytesPerTx']);
    const arm = comparison.comparisons[0]!;
    const wal = arm.otherMetricCells.find((c) => c.metric === 'walBytesPerTx')!;
    expect(wal).toMatchObject({ id: 'wal@1', better: 'lower', verdict: 'regression' });
    expect(wal.deltaPct!).toBeGreaterThan(80);
    expect(arm.decidingCells).toContain('wal@1 wal-bytes');
    expect(comparison.verdict).toBe('regression');
    expect(ran.stdout).toMatch(/WAL bytes\/tx \(bytes, lower is better\):/);
    expect(processesMentioning(tmp())).toEqual([]);
  }, 600_000);

  it('sysbench runs record them too, divided by sysbench transactions', async () => {
    const file = path.join(tmp(), 'sb.yml');
    await writeFile(
      file,
      'name: sb\ntool: sysbench\nscript: oltp_read_write\ntables: 1\ntableSize: 1000\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 1\n',
    );
    const out = path.join(tmp(), 'out-sb');
    const ran = await pgperf(runArgs(file, out, ['--force']));
    expect(ran.code, ran.stderr).toBe(0);
    const result = await onlyResults(out);
    const ok = result.samples.filter((s) => s.status === 'ok');
    expect(ok).toHaveLength(2);
    for (const s of ok) {
      expect(s.steady!.transactions).toBe(s.counts.transactions);
      // oltp_read_write: 4 writes per transaction.
      expect(s.metrics.walRecordsPerTx).toBeGreaterThanOrEqual(4);
      expect(s.metrics.walBytesPerTx).toBeGreaterThan(100);
      expect(s.metrics.bufferHitsPerTx).toBeGreaterThan(10);
      expect(s.metrics.backendCpuUsPerTx).toBeGreaterThan(0);
    }
  }, 600_000);

  it('a snapshot that fails loses the steady metrics of that sample, with a warning, not the run', async () => {
    const workload = parseWorkload(
      'name: tiny\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 2\n',
      'tiny.yml',
    );
    const logger = memoryLogger();
    // Two snapshots per measured run: the fourth, after the second run, fails.
    let calls = 0;
    const sink = fileSink(path.join(tmp(), 'failing', 'results.json'));
    const result = await runBenchmark(
      sameInstallRequest(binDir, tmp(), [workload], { order: 'abba', seed: 7, sink, preflightWindowS: 0 }),
      {
        runner: nodeProcessRunner,
        logger,
        statSnapshot: async (connection) => {
          calls++;
          if (calls === 4) throw new Error('connection refused (test)');
          return takeStatSnapshot(connection);
        },
      },
    );
    expect(result.status).toBe('complete');
    expect(result.samples).toHaveLength(4);
    expect(result.samples.every((s) => s.status === 'ok' && s.metrics.tps! > 0)).toBe(true);
    const [first, second, ...rest] = result.samples;
    expect(second!.steady).toBeUndefined();
    expect(second!.metrics.bufferHitsPerTx).toBeUndefined();
    for (const s of [first!, ...rest]) {
      expect(s.steady!.transactions).toBe(s.counts.processed);
      expect(s.metrics.bufferHitsPerTx).toBeGreaterThan(0);
    }
    expect(result.warnings.filter((w) => w.includes('steady'))).toEqual([
      expect.stringMatching(
        new RegExp(
          `^tiny@1 ${second!.arm} round 1: steady metrics not measured \\(counter snapshot after the run failed: connection refused \\(test\\)\\)$`,
        ),
      ),
    ]);
    expect(processesMentioning(tmp())).toEqual([]);
  }, 600_000);
});
