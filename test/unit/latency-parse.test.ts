/**
 * Latency percentiles from real captures: pgbench per-transaction logs (test/fixtures/pgbench/15-vs-15/
 * txlog-*, capture-txlog.sh) and a sysbench --histogram=on run (test/fixtures/sysbench/1.0.20-vs-15/
 * histogram.*, capture-histogram.sh). Expected values were computed from the captured files with sort/awk
 * (nearest rank over the raw µs column; sysbench's cumulative rule over its printed rows), not by the parser.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { percentileMetrics } from '../../src/drivers/pgbench/pgbench-driver.js';
import { parsePgbenchReport } from '../../src/drivers/pgbench/parse-report.js';
import {
  addTransactionLogLine,
  emptySummary,
  readTransactionLogs,
} from '../../src/drivers/pgbench/parse-transaction-log.js';
import { LatencyHistogram, histogramPercentile } from '../../src/drivers/common/latency-histogram.js';
import { parseSysbenchHistogram, parseSysbenchOutput } from '../../src/drivers/sysbench/parse-output.js';
import { reportMetrics } from '../../src/drivers/sysbench/sysbench-report-metrics.js';

const PGBENCH = fileURLToPath(new URL('../fixtures/pgbench/15-vs-15/', import.meta.url));
const SYSBENCH = new URL('../fixtures/sysbench/1.0.20-vs-15/', import.meta.url);

/** Within the histogram's ±0.25% bucket error. */
function near(actual: number | undefined, expected: number): void {
  expect(actual).toBeDefined();
  expect(Math.abs(actual! / expected - 1)).toBeLessThan(0.0026);
}

describe('pgbench per-transaction log', () => {
  it('select-only, two threads: every processed transaction, p95 and p99 by nearest rank', async () => {
    const log = await readTransactionLogs(`${PGBENCH}txlog-select-only`, 'tx');
    const report = parsePgbenchReport(readFileSync(`${PGBENCH}txlog-select-only/select-only.stdout`, 'utf8'));
    expect(log.files).toBe(2);
    expect(log.histogram.count).toBe(report.processed); // 800
    expect(log.skipped + log.failed + log.unparsed).toBe(0);
    const m = percentileMetrics(log);
    near(m.latencyP95Ms, 1.005); // rank 760 of 800: 1005 µs
    near(m.latencyP99Ms, 4.999); // rank 792: 4999 µs
  });

  it('rate-limit with --latency-limit: skipped transactions stay out; the average matches pgbench', async () => {
    const log = await readTransactionLogs(`${PGBENCH}txlog-rate-limit`, 'tx');
    const report = parsePgbenchReport(readFileSync(`${PGBENCH}txlog-rate-limit/rate-limit.stdout`, 'utf8'));
    expect(log.histogram.count).toBe(report.processed); // 617
    expect(log.skipped).toBe(report.skipped); // 171
    expect(Math.abs(log.histogram.averageMs! - report.latencyAvgMs!)).toBeLessThan(0.001); // 1.221 ms
    const m = percentileMetrics(log);
    near(m.latencyP95Ms, 4.487); // rank 587 of 617
    near(m.latencyP99Ms, 8.324); // rank 611
  });

  it('counts failed and unparsable lines apart, and an empty log gives no percentile', () => {
    const s = emptySummary();
    for (const line of ['0 1 failed 0 1795452226 980742', '0 2 12', '', '0 3 250 0 1795452226 985381 7 0']) {
      addTransactionLogLine(line, s);
    }
    expect([s.failed, s.unparsed, s.histogram.count]).toEqual([1, 1, 1]);
    expect(percentileMetrics(emptySummary())).toEqual({});
  });

  it('the histogram is exact to its bucket width at any scale', () => {
    const h = new LatencyHistogram();
    for (let us = 1; us <= 100_000; us++) h.addUs(us);
    near(h.percentileMs(0.95), 95);
    near(h.percentileMs(0.99), 99);
    near(h.percentileMs(0.5), 50);
  });
});

describe('sysbench --histogram=on', () => {
  const stdout = readFileSync(new URL('histogram.stdout', SYSBENCH), 'utf8');

  it('reads every printed row; the counts add up to the transactions', () => {
    const rows = parseSysbenchHistogram(stdout)!;
    expect(rows).toHaveLength(122);
    expect(rows[0]).toEqual({ value: 0.92, count: 1 });
    expect(rows.at(-1)).toEqual({ value: 9.91, count: 1 });
    expect(rows.reduce((s, r) => s + r.count, 0)).toBe(2588);
    expect(parseSysbenchHistogram('no histogram here')).toBeUndefined();
  });

  it("p95 equals sysbench's own 95th percentile line; p99 by the same rule", () => {
    const report = parseSysbenchOutput(stdout);
    expect(report.transactions).toBe(2588);
    const m = reportMetrics(report);
    expect(m.latencyP95Ms).toBe(report.latencyPctMs); // 5.47
    expect(m.latencyP95Ms).toBe(5.47);
    expect(m.latencyP99Ms).toBe(6.913);
    expect(histogramPercentile([], 0.99)).toBeUndefined();
  });
});
