/**
 * sysbench output parsing against real captured runs (test/fixtures/sysbench/<sysbench>-vs-<server>/,
 * see the README there). Every expected number below was read off the captured text by hand, not
 * produced by the parser, so a parser bug or a format drift fails here.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ignoredErrorsPct, judgeSysbenchRun } from '../../src/drivers/sysbench/sysbench-judge-run.js';
import {
  parseSysbenchInterval,
  parseSysbenchOutput,
  sysbenchFatalMessages,
} from '../../src/drivers/sysbench/parse-output.js';
import type { SysbenchReport } from '../../src/drivers/sysbench/parse-output.js';
import {
  progressPoint,
  reportCounts,
  reportMetrics,
} from '../../src/drivers/sysbench/sysbench-report-metrics.js';
import type { FixtureMeta } from '../helpers/fixtures.js';

const ROOT = new URL('../fixtures/sysbench/', import.meta.url);

interface Fixture {
  stdout: string;
  stderr: string;
  meta: FixtureMeta;
}

const DIRS = readdirSync(ROOT).filter((d) => /^\d+\.\d+\.\d+-vs-\d+$/.test(d));

function fixture(id: string): Fixture {
  const read = (ext: string) => readFileSync(new URL(`${id}.${ext}`, ROOT), 'utf8');
  return { stdout: read('stdout'), stderr: read('stderr'), meta: JSON.parse(read('json')) as FixtureMeta };
}

/** The value of a --name=value option in the recorded argv. */
function optionOf(argv: string[], name: string): string | undefined {
  return argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

type Expected = Required<
  Pick<
    SysbenchReport,
    | 'threads'
    | 'reads'
    | 'writes'
    | 'other'
    | 'transactions'
    | 'tps'
    | 'qps'
    | 'ignoredErrors'
    | 'latencyMinMs'
    | 'latencyAvgMs'
    | 'latencyMaxMs'
    | 'percentile'
    | 'latencyPctMs'
  >
> & { intervals: number };

// prettier-ignore
const EXPECTED: Record<string, Expected> = {
  '1.0.20-vs-15/oltp_read_only': { threads: 2, reads: 144088, writes: 0, other: 20584, transactions: 10292, tps: 3423.32, qps: 54773.06, ignoredErrors: 0, latencyMinMs: 0.31, latencyAvgMs: 0.58, latencyMaxMs: 57.42, percentile: 95, latencyPctMs: 1.27, intervals: 3 },
  '1.0.20-vs-15/oltp_write_only': { threads: 2, reads: 0, writes: 83590, other: 41798, transactions: 20898, tps: 6947.83, qps: 41686.97, ignoredErrors: 0, latencyMinMs: 0.09, latencyAvgMs: 0.29, latencyMaxMs: 45.83, percentile: 95, latencyPctMs: 0.54, intervals: 3 },
  '1.0.20-vs-15/oltp_read_write': { threads: 2, reads: 53676, writes: 15336, other: 7668, transactions: 3834, tps: 1275.46, qps: 25509.22, ignoredErrors: 0, latencyMinMs: 0.61, latencyAvgMs: 1.56, latencyMaxMs: 162.06, percentile: 95, latencyPctMs: 2.97, intervals: 3 },
  '1.0.20-vs-15/oltp_point_select': { threads: 2, reads: 213881, writes: 0, other: 0, transactions: 213881, tps: 71252.28, qps: 71252.28, ignoredErrors: 0, latencyMinMs: 0.01, latencyAvgMs: 0.03, latencyMaxMs: 7.19, percentile: 95, latencyPctMs: 0.03, intervals: 2 },
  '1.0.20-vs-15/oltp_update_index': { threads: 2, reads: 0, writes: 100638, other: 0, transactions: 100638, tps: 33505.67, qps: 33505.67, ignoredErrors: 0, latencyMinMs: 0.02, latencyAvgMs: 0.06, latencyMaxMs: 9.08, percentile: 95, latencyPctMs: 0.1, intervals: 2 },
  '1.0.20-vs-15/oltp_update_non_index': { threads: 2, reads: 0, writes: 130535, other: 0, transactions: 130535, tps: 43438.72, qps: 43438.72, ignoredErrors: 0, latencyMinMs: 0.02, latencyAvgMs: 0.05, latencyMaxMs: 9.96, percentile: 95, latencyPctMs: 0.06, intervals: 3 },
  '1.0.20-vs-15/oltp_insert': { threads: 2, reads: 0, writes: 96183, other: 0, transactions: 96183, tps: 31977.36, qps: 31977.36, ignoredErrors: 0, latencyMinMs: 0.02, latencyAvgMs: 0.06, latencyMaxMs: 54.99, percentile: 95, latencyPctMs: 0.1, intervals: 3 },
  '1.0.20-vs-15/read-only-p99-disable': { threads: 2, reads: 30072, writes: 0, other: 4296, transactions: 2148, tps: 1070.01, qps: 17120.11, ignoredErrors: 0, latencyMinMs: 0.66, latencyAvgMs: 1.86, latencyMaxMs: 10.06, percentile: 99, latencyPctMs: 6.32, intervals: 2 },
  '1.0.20-vs-15/ignored-errors': { threads: 8, reads: 54012, writes: 14713, other: 7908, transactions: 3660, tps: 1210.72, qps: 25350.13, ignoredErrors: 198, latencyMinMs: 0.35, latencyAvgMs: 6.58, latencyMaxMs: 148.28, percentile: 95, latencyPctMs: 27.66, intervals: 3 },
  '1.0.20-vs-18/oltp_read_only': { threads: 2, reads: 139650, writes: 0, other: 19950, transactions: 9975, tps: 3319.53, qps: 53112.42, ignoredErrors: 0, latencyMinMs: 0.3, latencyAvgMs: 0.6, latencyMaxMs: 214.39, percentile: 95, latencyPctMs: 1.73, intervals: 3 },
  '1.0.20-vs-18/oltp_write_only': { threads: 2, reads: 0, writes: 103608, other: 51804, transactions: 25902, tps: 8609.82, qps: 51658.9, ignoredErrors: 0, latencyMinMs: 0.09, latencyAvgMs: 0.23, latencyMaxMs: 15.36, percentile: 95, latencyPctMs: 0.35, intervals: 3 },
  '1.0.20-vs-18/oltp_read_write': { threads: 2, reads: 40376, writes: 11536, other: 5768, transactions: 2884, tps: 957.86, qps: 19157.22, ignoredErrors: 0, latencyMinMs: 0.59, latencyAvgMs: 2.08, latencyMaxMs: 51.21, percentile: 95, latencyPctMs: 5.47, intervals: 3 },
  '1.0.20-vs-18/oltp_point_select': { threads: 2, reads: 139235, writes: 0, other: 0, transactions: 139235, tps: 46341.76, qps: 46341.76, ignoredErrors: 0, latencyMinMs: 0.01, latencyAvgMs: 0.04, latencyMaxMs: 8.85, percentile: 95, latencyPctMs: 0.07, intervals: 2 },
  '1.0.20-vs-18/oltp_update_index': { threads: 2, reads: 0, writes: 103084, other: 0, transactions: 103084, tps: 34314.48, qps: 34314.48, ignoredErrors: 0, latencyMinMs: 0.02, latencyAvgMs: 0.06, latencyMaxMs: 40.42, percentile: 95, latencyPctMs: 0.1, intervals: 2 },
  '1.0.20-vs-18/oltp_update_non_index': { threads: 2, reads: 0, writes: 96658, other: 0, transactions: 96658, tps: 32158.65, qps: 32158.65, ignoredErrors: 0, latencyMinMs: 0.02, latencyAvgMs: 0.06, latencyMaxMs: 119.2, percentile: 95, latencyPctMs: 0.1, intervals: 2 },
  '1.0.20-vs-18/oltp_insert': { threads: 2, reads: 0, writes: 59840, other: 0, transactions: 59840, tps: 19893.02, qps: 19893.02, ignoredErrors: 0, latencyMinMs: 0.02, latencyAvgMs: 0.1, latencyMaxMs: 26.29, percentile: 95, latencyPctMs: 0.19, intervals: 3 },
  '1.0.20-vs-18/read-only-p99-disable': { threads: 2, reads: 41762, writes: 0, other: 5966, transactions: 2983, tps: 1489.33, qps: 23829.26, ignoredErrors: 0, latencyMinMs: 0.65, latencyAvgMs: 1.34, latencyMaxMs: 42.07, percentile: 99, latencyPctMs: 5.18, intervals: 2 },
  '1.0.20-vs-18/ignored-errors': { threads: 8, reads: 53690, writes: 14591, other: 7874, transactions: 3641, tps: 1206.54, qps: 25235.97, ignoredErrors: 194, latencyMinMs: 0.33, latencyAvgMs: 6.61, latencyMaxMs: 144.9, percentile: 95, latencyPctMs: 28.67, intervals: 3 },
};

/** Queries per transaction of each script with sysbench's default options (oltp_common.lua). */
const QUERIES_PER_TRANSACTION: Record<string, number> = {
  oltp_read_only: 16, // BEGIN, 10 point selects, 4 range queries, COMMIT
  oltp_read_write: 20, // the read-only ones plus 2 UPDATEs, a DELETE and an INSERT
  oltp_write_only: 6, // BEGIN, 2 UPDATEs, DELETE, INSERT, COMMIT
  oltp_point_select: 1,
  oltp_update_index: 1,
  oltp_update_non_index: 1,
  oltp_insert: 1,
};

describe('captured fixtures', () => {
  it('cover sysbench 1.0.20 against PostgreSQL 15 and 18, every case in each', () => {
    expect(DIRS.sort()).toEqual(['1.0.20-vs-15', '1.0.20-vs-18']);
    for (const dir of DIRS) {
      const cases = readdirSync(new URL(`${dir}/`, ROOT)).filter((f) => f.endsWith('.json'));
      // The histogram case (capture-histogram.sh) was captured against 15 only.
      expect(cases.length).toBe(dir === '1.0.20-vs-15' ? 15 : 14);
      for (const c of cases) {
        const meta = fixture(`${dir}/${c.replace(/\.json$/, '')}`).meta;
        expect(meta.clientVersion).toBe('sysbench 1.0.20');
        expect(meta.serverVersion).toMatch(
          new RegExp(`^postgres \\(PostgreSQL\\) ${dir.split('-vs-')[1]}\\.`),
        );
      }
    }
  });
});

describe('parseSysbenchOutput', () => {
  it.each(Object.entries(EXPECTED))('%s', (id, expected) => {
    const fx = fixture(id);
    const r = parseSysbenchOutput(fx.stdout);
    const { intervals, ...numbers } = expected;
    expect(r).toMatchObject({ empty: false, version: '1.0.20', fatal: [], ...numbers });
    expect(r.intervals).toHaveLength(intervals);
    // Consistency of the report with itself and with the command that produced it.
    expect(r.totalQueries).toBe(r.reads! + r.writes! + r.other!);
    expect(r.queries).toBe(r.totalQueries);
    expect(r.events).toBe(r.transactions);
    expect(r.randSeed).toBe(Number(optionOf(fx.meta.command, '--rand-seed')));
    expect(r.threads).toBe(Number(optionOf(fx.meta.command, '--threads')));
    expect(r.percentile).toBe(Number(optionOf(fx.meta.command, '--percentile')));
    expect(r.intervals.map((i) => i.t)).toEqual(Array.from({ length: intervals }, (_, i) => i + 1));
    for (const i of r.intervals) expect(i.percentile).toBe(r.percentile);
    const script = fx.meta.command[1]!;
    if (r.ignoredErrors === 0) {
      expect(r.queries! / r.transactions!).toBe(QUERIES_PER_TRANSACTION[script]);
    }
    expect(fx.stderr).toBe('');
    expect(fx.meta.exitCode).toBe(0);
  });

  it('reads every field of a whole report (15, oltp_read_only)', () => {
    expect(parseSysbenchOutput(fixture('1.0.20-vs-15/oltp_read_only').stdout)).toEqual({
      empty: false,
      version: '1.0.20',
      threads: 2,
      randSeed: 42,
      reads: 144088,
      writes: 0,
      other: 20584,
      totalQueries: 164672,
      transactions: 10292,
      tps: 3423.32,
      queries: 164672,
      qps: 54773.06,
      ignoredErrors: 0,
      ignoredErrorsPerS: 0,
      reconnects: 0,
      reconnectsPerS: 0,
      totalTimeS: 3.0056,
      events: 10292,
      latencyMinMs: 0.31,
      latencyAvgMs: 0.58,
      latencyMaxMs: 57.42,
      percentile: 95,
      latencyPctMs: 1.27,
      latencySumMs: 5994.04,
      eventsPerThreadAvg: 5146,
      eventsPerThreadStddev: 252,
      execTimePerThreadAvgS: 2.997,
      execTimePerThreadStddevS: 0,
      intervals: [
        {
          t: 1,
          threads: 2,
          tps: 3429.27,
          qps: 54894.32,
          readsPerS: 48033.78,
          writesPerS: 0,
          otherPerS: 6860.54,
          percentile: 95,
          latencyPctMs: 1.27,
          errorsPerS: 0,
          reconnectsPerS: 0,
        },
        expect.objectContaining({ t: 2 }),
        expect.objectContaining({ t: 3 }),
      ],
      fatal: [],
    });
  });

  it('reads the ignored errors and their per-interval rate (15, 8 threads on one 20-row table)', () => {
    const r = parseSysbenchOutput(fixture('1.0.20-vs-15/ignored-errors').stdout);
    expect(r).toMatchObject({ ignoredErrors: 198, ignoredErrorsPerS: 65.5, reconnects: 0 });
    expect(r.intervals.map((i) => i.errorsPerS)).toEqual([73.84, 57.38, 64.76]);
    expect(r.intervals.map((i) => i.latencyPctMs)).toEqual([30.81, 29.19, 25.28]);
    expect(ignoredErrorsPct(r)).toBeCloseTo((100 * 198) / 3858, 10);
  });

  it('finds no report and names the FATAL errors of a connection failure', () => {
    const fx = fixture('1.0.20-vs-15/connection-failure');
    expect(fx.meta.exitCode).toBe(1);
    const r = parseSysbenchOutput(fx.stdout);
    expect(r.empty).toBe(true);
    expect(r.transactions).toBeUndefined();
    expect(r.intervals).toEqual([]);
    expect(r.threads).toBe(2);
    expect(r.fatal).toEqual([
      'Connection to database failed: connection to server on socket "/tmp/SOCKET/.s.PGSQL.55616" failed: No such file or directory',
      "`thread_init' function failed: /usr/share/sysbench/oltp_common.lua:349: connection creation failed",
      'Connection to database failed: connection to server on socket "/tmp/SOCKET/.s.PGSQL.55616" failed: No such file or directory',
      "`thread_init' function failed: /usr/share/sysbench/oltp_common.lua:349: connection creation failed",
      'Thread initialization failed!',
    ]);
  });

  it.each(DIRS)('a failing prepare exits 0 and only its FATAL lines tell (%s)', (dir) => {
    const fx = fixture(`${dir}/prepare-failure`);
    expect(fx.meta.exitCode).toBe(0);
    const fatal = sysbenchFatalMessages(fx.stdout);
    expect(fatal).toHaveLength(6);
    expect(fatal[0]).toBe('PQexec() failed: 7 no schema has been selected to create in');
    expect(fatal.filter((f) => f.includes("state = '3F000'"))).toHaveLength(2);
    expect(sysbenchFatalMessages(fixture(`${dir}/prepare`).stdout)).toEqual([]);
  });
});

describe('parseSysbenchInterval', () => {
  it('reads an interval line, and nothing else', () => {
    expect(
      parseSysbenchInterval(
        '[ 3s ] thds: 1 tps: 2221.05 qps: 35520.82 (r/w/o: 31079.72/0.00/4441.10) lat (ms,95%): 2.07 err/s: 0.00 reconn/s: 0.00',
      ),
    ).toEqual({
      t: 3,
      threads: 1,
      tps: 2221.05,
      qps: 35520.82,
      readsPerS: 31079.72,
      writesPerS: 0,
      otherPerS: 4441.1,
      percentile: 95,
      latencyPctMs: 2.07,
      errorsPerS: 0,
      reconnectsPerS: 0,
    });
    expect(parseSysbenchInterval('progress: 1.0 s, 2432.8 tps, lat 0.820 ms stddev 0.117, 0 failed')).toBe(
      undefined,
    );
    expect(parseSysbenchInterval('    transactions:                        6680   (2221.69 per sec.)')).toBe(
      undefined,
    );
  });
});

describe('judgeSysbenchRun', () => {
  const judge = (id: string, maxIgnoredErrorsPct = 1) => {
    const fx = fixture(id);
    return judgeSysbenchRun({
      exitCode: fx.meta.exitCode,
      stdout: fx.stdout,
      stderr: fx.stderr,
      expectedThreads: Number(optionOf(fx.meta.command, '--threads')),
      maxIgnoredErrorsPct,
    });
  };

  it.each(
    DIRS.flatMap((d) => Object.keys(QUERIES_PER_TRANSACTION).map((s) => `${d}/${s}`)).concat(
      DIRS.map((d) => `${d}/read-only-p99-disable`),
    ),
  )('%s is a usable measurement', (id) => {
    const judged = judge(id);
    expect(judged.ok).toBe(true);
    expect(judged.report?.tps).toBe(EXPECTED[id]!.tps);
  });

  it('fails a run whose ignored errors exceed the threshold, with the numbers', () => {
    const judged = judge('1.0.20-vs-15/ignored-errors', 1);
    expect(judged).toMatchObject({
      ok: false,
      reason:
        'too many ignored errors: 198 of 3858 transaction attempts (5.13%) exceed maxIgnoredErrorsPct 1% ' +
        '(deadlocks, duplicate keys or serialization failures that sysbench rolled back and retried)',
    });
    // The report is kept: the sample still shows what the run measured.
    expect(judged.report?.transactions).toBe(3660);
    expect(judge('1.0.20-vs-15/ignored-errors', 5.2).ok).toBe(true);
    expect(judge('1.0.20-vs-18/ignored-errors', 5)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^too many ignored errors: 194 of 3835 transaction attempts \(5\.06%\)/),
    });
  });

  it('fails a connection failure with the first FATAL message and no report', () => {
    const judged = judge('1.0.20-vs-15/connection-failure');
    expect(judged).toEqual({
      ok: false,
      reason:
        'sysbench exited with code 1: Connection to database failed: connection to server on socket "/tmp/SOCKET/.s.PGSQL.55616" failed: No such file or directory',
    });
  });

  it('fails FATAL lines even with exit code 0, a signal, a thread count that differs, an empty report', () => {
    const ok = fixture('1.0.20-vs-15/oltp_read_only');
    const base = { stdout: ok.stdout, stderr: '', expectedThreads: 2, maxIgnoredErrorsPct: 1 };
    expect(
      judgeSysbenchRun({ ...base, exitCode: 0, stdout: fixture('1.0.20-vs-15/prepare-failure').stdout }),
    ).toEqual({
      ok: false,
      reason: 'sysbench reported 6 FATAL errors: PQexec() failed: 7 no schema has been selected to create in',
    });
    expect(judgeSysbenchRun({ ...base, exitCode: null, signal: 'SIGTERM' })).toMatchObject({
      ok: false,
      reason: 'sysbench was terminated by signal SIGTERM',
    });
    expect(judgeSysbenchRun({ ...base, exitCode: 0, expectedThreads: 4 })).toMatchObject({
      ok: false,
      reason: 'sysbench ran 2 threads, expected 4',
    });
    expect(judgeSysbenchRun({ ...base, exitCode: 0, stdout: 'sysbench 1.0.20\n' })).toEqual({
      ok: false,
      reason: 'sysbench exited 0 but printed no report',
    });
  });
});

describe('sample fields', () => {
  const report = parseSysbenchOutput(fixture('1.0.20-vs-15/oltp_read_write').stdout);

  it.each<[string, (r: SysbenchReport) => object, object]>([
    [
      'metrics: TPS, QPS, average and percentile latency',
      reportMetrics,
      { tps: 1275.46, qps: 25509.22, latencyAvgMs: 1.56, latencyPctMs: 2.97 },
    ],
    [
      'counts: the report counters and the FATAL errors',
      reportCounts,
      {
        transactions: 3834,
        queries: 76680,
        read: 53676,
        write: 15336,
        other: 7668,
        ignoredErrors: 0,
        reconnects: 0,
        events: 3834,
        totalTimeS: 3.0052,
        latencyMinMs: 0.61,
        latencyMaxMs: 162.06,
        percentile: 95,
        errors: 0,
      },
    ],
  ])('%s', (_name, fields, expected) => {
    expect(fields(report)).toEqual(expected);
  });

  it('progress: interval lines with their percentile latency, not as an average', () => {
    const points = report.intervals.map(progressPoint);
    expect(points[0]).toEqual({
      t: 1,
      tps: 1364.97,
      qps: 27324.44,
      latencyPctMs: 2.66,
      ignoredErrorsPerS: 0,
    });
    expect(points.every((p) => p.latencyAvgMs === undefined)).toBe(true);
  });
});
