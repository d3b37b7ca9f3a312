/**
 * Steady per-transaction metrics without a server: counter deltas over a run divided by its transactions,
 * the /proc parsing behind backend CPU, the side-by-side summary and the comment's section, and gating:
 * a head that writes twice the WAL per transaction is a regression on wal-bytes once that metric is gated.
 */
import { describe, expect, it } from 'vitest';
import {
  clientTransactions,
  perTransactionMetrics,
  statDeltas,
  steadyOutcome,
  type StatSnapshot,
} from '../../src/core/results/steady.js';
import { STEADY_METRICS, metricFromName, gatedName } from '../../src/core/results/metrics.js';
import { parsePidStatLine as parseProcStat } from '../../src/machine/pid-stat.js';
import { steadySummary } from '../../src/core/compare/evidence/steady-summary.js';
import { steadyMetricsSection } from '../../src/core/report/evidence/steady-metrics-section.js';
import { analyse } from '../../src/core/compare/analysis/recorded-analysis.js';
import { recordedMetrics } from '../../src/drivers/recorded-metrics.js';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import { resultsSchema } from '../../src/core/results/results-schema.js';
import type { Sample } from '../../src/core/results/result-types.js';
import { document, gaussian, sample } from '../../testkit/synthetic-run.js';
import { seededRandom } from '../../src/core/stats/seeded-random.js';

const snap = (
  counters: StatSnapshot['counters'],
  takenAtMs = 0,
  unavailable: string[] = [],
): StatSnapshot => ({
  serverVersionNum: 150018,
  takenAtMs,
  counters,
  unavailable,
});

describe('per-transaction metrics from counter deltas', () => {
  const before = snap(
    {
      walBytes: 1_000_000,
      walRecords: 100,
      walFpi: 10,
      blksHit: 5000,
      blksRead: 50,
      xactCommit: 7,
      cpuUs: 2e6,
    },
    1000,
  );
  const after = snap(
    {
      walBytes: 3_000_000,
      walRecords: 1100,
      walFpi: 60,
      blksHit: 25_000,
      blksRead: 50,
      xactCommit: 207,
      cpuUs: 2.5e6,
    },
    3500,
  );

  it('divides each delta by the transactions the client counted', () => {
    const out = steadyOutcome(before, after, 200)!;
    expect(out.metrics).toEqual({
      walBytesPerTx: 10_000,
      walRecordsPerTx: 5,
      walFpiPerTx: 0.25,
      bufferHitsPerTx: 100,
      bufferReadsPerTx: 0,
      backendCpuUsPerTx: 2500,
    });
    expect(out.record).toEqual({
      version: 1,
      transactions: 200,
      elapsedS: 2.5,
      deltas: {
        walBytes: 2_000_000,
        walRecords: 1000,
        walFpi: 50,
        blksHit: 20_000,
        blksRead: 0,
        xactCommit: 200,
        cpuUs: 500_000,
      },
      unavailable: [],
    });
  });

  it('a head that writes twice the WAL per transaction doubles walBytesPerTx, whatever its TPS', () => {
    // Same WAL per transaction at different speeds: the metric does not move with throughput.
    const slow = perTransactionMetrics({ walBytes: 1_000_000 }, 100);
    const fast = perTransactionMetrics({ walBytes: 3_000_000 }, 300);
    expect(fast.walBytesPerTx).toBe(slow.walBytesPerTx);
    const doubled = perTransactionMetrics({ walBytes: 2_000_000 }, 100);
    expect(doubled.walBytesPerTx! / slow.walBytesPerTx!).toBe(2);
  });

  it('leaves out counters missing on either side, and names those that went backwards', () => {
    const { deltas, unusable } = statDeltas(
      snap({ walBytes: 10, blksHit: 500, cpuUs: 1 }),
      snap({ walBytes: 20, blksHit: 100, walRecords: 3 }),
    );
    expect(deltas).toEqual({ walBytes: 10 });
    expect(unusable).toEqual(['blksHit']);
    const out = steadyOutcome(
      snap({ walBytes: 10, blksHit: 500 }, 0, [
        'WAL records and full-page images (pg_stat_wal: PostgreSQL 14+)',
      ]),
      snap({ walBytes: 20, blksHit: 100 }),
      5,
    )!;
    expect(out.metrics).toEqual({ walBytesPerTx: 2 });
    expect(out.record.unavailable).toEqual([
      'WAL records and full-page images (pg_stat_wal: PostgreSQL 14+)',
      'blksHit (the counter went backwards: reset or restart)',
    ]);
  });

  it('gives nothing without transactions to divide by', () => {
    expect(steadyOutcome(before, after, 0)).toBeUndefined();
    expect(steadyOutcome(before, after, undefined)).toBeUndefined();
    expect(perTransactionMetrics({ walBytes: 5 }, Number.NaN)).toEqual({});
  });

  it("takes pgbench's processed or sysbench's transactions as the run's transactions", () => {
    expect(clientTransactions({ processed: 1234, failed: 2 })).toBe(1234);
    expect(clientTransactions({ transactions: 99, queries: 1980 })).toBe(99);
    expect(clientTransactions({ late: 3 })).toBeUndefined();
  });
});

describe('/proc/<pid>/stat', () => {
  it('reads state, parent and CPU ticks, also when the name holds spaces and parentheses', () => {
    const fields = 'S 4242 4242 4242 0 -1 4194560 1290 0 0 0 1234 567 89 10 20 0 1 0 12345 229376000 3245';
    expect(parseProcStat(`4301 (postgres: a) b) ${fields}`)).toEqual({
      pid: 4301,
      comm: 'postgres: a) b',
      state: 'S',
      ppid: 4242,
      utime: 1234,
      stime: 567,
      cutime: 89,
      cstime: 10,
    });
    expect(parseProcStat('garbage')).toBeUndefined();
    expect(parseProcStat('12 (x) S 1 2')).toBeUndefined();
  });
});

describe('steady metrics as names', () => {
  it('have short names for workload metrics and --metric, lower is better', () => {
    expect(STEADY_METRICS.map(gatedName)).toEqual([
      'wal-bytes',
      'wal-records',
      'wal-fpi',
      'buffer-hits',
      'buffer-reads',
      'read-time',
      'io-reads',
      'backend-cpu',
      'memory-peak',
      'memory-median',
      'temp-bytes',
      'temp-files',
    ]);
    expect(metricFromName('wal-bytes')).toBe('walBytesPerTx');
    expect(metricFromName('bufferHitsPerTx')).toBe('bufferHitsPerTx');
  });

  it('are recorded by every workload, and a workload may gate on them', () => {
    const w = parseWorkload(
      'name: w\ntool: pgbench\nbuiltin: tpcb-like\nclients: [1]\nmetrics: [tps, wal-bytes, buffer-hits]\n',
      'w.yml',
    );
    expect(w.metrics).toEqual(['tps', 'wal-bytes', 'buffer-hits']);
    expect(recordedMetrics(w)).toEqual(expect.arrayContaining([...STEADY_METRICS]));
  });
});

/** base and head over 8 rounds: head's WAL per transaction is `walFactor` times base's. */
function walRun(walFactor: number, metrics = ['tps', 'wal-bytes']) {
  const normal = gaussian(seededRandom(5));
  const samples: Sample[] = [];
  for (let round = 1; round <= 8; round++) {
    for (const arm of ['base', 'head']) {
      const f = arm === 'head' ? walFactor : 1;
      const noise = Math.exp(0.01 * normal());
      samples.push(
        sample({
          round,
          workload: 'writes',
          clients: 1,
          arm,
          metrics: {
            tps: 500 * Math.exp(0.05 * normal()),
            walBytesPerTx: 11_000 * f * noise,
            walRecordsPerTx: 7.5 * noise,
            walFpiPerTx: 1.5 * f * noise,
            bufferHitsPerTx: 28 * noise,
            bufferReadsPerTx: 0,
            backendCpuUsPerTx: 1800 * noise,
          },
          steady: {
            version: 1,
            transactions: 1000,
            elapsedS: 2,
            deltas: { walBytes: 11_000_000 * f * noise },
            unavailable: [],
          },
        }),
      );
    }
  }
  return document(['base', 'head'], { writes: [1] }, 8, samples, { writes: { metrics } });
}

describe('gating on a steady metric', () => {
  it('a doubled WAL per transaction is a regression on wal-bytes when the workload gates on it', () => {
    const result = walRun(2);
    expect(resultsSchema.safeParse(JSON.parse(JSON.stringify(result))).success).toBe(true);
    const comparison = analyse(result);
    expect(comparison.gatedMetrics).toEqual(['tps', 'walBytesPerTx']);
    const wal = comparison.comparisons[0]!.otherMetricCells[0]!;
    expect(wal).toMatchObject({ metric: 'walBytesPerTx', better: 'lower', verdict: 'regression' });
    expect(wal.deltaPct!).toBeGreaterThan(90);
    expect(comparison.verdict).toBe('regression');
  });

  it('the same WAL is no regression; an ungated steady metric never decides', () => {
    expect(analyse(walRun(1)).comparisons[0]!.otherMetricCells[0]!.verdict).not.toBe('regression');
    const ungated = analyse(walRun(2, ['tps']));
    expect(ungated.gatedMetrics).toEqual(['tps']);
    expect(ungated.verdict).not.toBe('regression');
    // --metric wal-bytes gates on it alone.
    expect(analyse(walRun(2, ['tps']), { metric: 'walBytesPerTx' }).verdict).toBe('regression');
  });

  it('the summary and the comment section show base, head and the change per metric', () => {
    const summary = steadySummary(walRun(2));
    expect(summary).toHaveLength(1);
    expect(summary[0]).toMatchObject({ baseline: 'base', head: 'head', cell: 'writes@1' });
    const wal = summary[0]!.metrics.find((m) => m.metric === 'walBytesPerTx')!;
    expect(wal.name).toBe('wal-bytes');
    expect(wal.head! / wal.base!).toBeCloseTo(2, 1);
    expect(wal.deltaPct!).toBeGreaterThan(90);
    const reads = summary[0]!.metrics.find((m) => m.metric === 'bufferReadsPerTx')!;
    expect(reads).toMatchObject({ base: 0, head: 0, deltaPct: null });

    const section = steadyMetricsSection(walRun(2))!;
    const text = section.body.join('\n');
    expect(text).toMatch(/\| cell \| WAL bytes\/tx \(bytes\) \|/);
    expect(text).toMatch(/\| writes&#64;1 \| 1\d,\d{3} → 2\d,\d{3} \(\+\d+\.\d%\) \|/);
    expect(steadySummary(document(['base', 'head'], { w: [1] }, 1, []))).toEqual([]);
  });
});
