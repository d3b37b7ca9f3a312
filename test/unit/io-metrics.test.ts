/**
 * The I/O-path steady metrics and cold starts without a server: read time and pg_stat_io reads per
 * transaction from counter deltas, their gated names, the workload field `coldStart` (its own clusters,
 * track_io_timing on), the page-cache drop's refusal, and the cold record a results document keeps.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { perTransactionMetrics, steadyOutcome, type StatSnapshot } from '../../src/core/results/steady.js';
import { METRICS, metricFromName } from '../../src/core/results/metrics.js';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import { coldStartSettings, groupDataSets } from '../../src/run/run-clusters.js';
import { dropPageCache } from '../../src/machine/os/drop-caches.js';
import { resultsSchema } from '../../src/core/results/results-schema.js';
import { document, sample } from '../../testkit/synthetic-run.js';

const snap = (counters: StatSnapshot['counters'], unavailable: string[] = []): StatSnapshot => ({
  serverVersionNum: 160000,
  takenAtMs: 0,
  counters,
  unavailable,
});

describe('read time and I/O reads per transaction', () => {
  it('divide blk_read_time and pg_stat_io reads by the transactions', () => {
    expect(perTransactionMetrics({ blksRead: 900, blkReadTimeMs: 45, ioReads: 300 }, 100)).toEqual({
      bufferReadsPerTx: 9,
      readTimeMsPerTx: 0.45,
      ioReadsPerTx: 3,
    });
  });

  it('are left out where the server had no source, and say why', () => {
    const out = steadyOutcome(
      snap({ blksRead: 10 }, ['I/O operations (pg_stat_io: PostgreSQL 16+)']),
      snap({ blksRead: 30 }, ['I/O operations (pg_stat_io: PostgreSQL 16+)']),
      10,
    )!;
    expect(out.metrics).toEqual({ bufferReadsPerTx: 2 });
    expect(out.record.unavailable).toEqual(['I/O operations (pg_stat_io: PostgreSQL 16+)']);
  });

  it('have gated names, lower is better', () => {
    expect(metricFromName('read-time')).toBe('readTimeMsPerTx');
    expect(metricFromName('io-reads')).toBe('ioReadsPerTx');
    expect(METRICS.readTimeMsPerTx.better).toBe('lower');
    const w = parseWorkload(
      'name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1]\nmetrics: [tps, read-time, io-reads]\n',
      'w.yml',
    );
    expect(w.metrics).toEqual(['tps', 'read-time', 'io-reads']);
  });
});

describe('coldStart', () => {
  const base = 'tool: pgbench\nbuiltin: select-only\nclients: [1]\nscale: 2\n';
  const cold = parseWorkload(`name: cold\n${base}coldStart: true\n`, 'cold.yml');
  const warm = parseWorkload(`name: warm\n${base}`, 'warm.yml');

  it('is off unless true, and absent when off', () => {
    expect(cold.coldStart).toBe(true);
    expect(warm.coldStart).toBeUndefined();
    expect(parseWorkload(`name: w\n${base}coldStart: false\n`, 'w.yml').coldStart).toBeUndefined();
    expect(() => parseWorkload(`name: w\n${base}coldStart: yes please\n`, 'w.yml')).toThrow(/coldStart/);
  });

  it('gets its own clusters: its restarts never empty the buffers of a workload that runs warm', () => {
    expect(groupDataSets([cold, warm]).map((d) => d.workloads.map((w) => w.name))).toEqual([
      ['cold'],
      ['warm'],
    ]);
  });

  it('times reads (track_io_timing on) unless the workload says otherwise; warm workloads do not', () => {
    expect(coldStartSettings(cold)).toEqual({ track_io_timing: 'on' });
    expect(coldStartSettings({ ...cold, settings: { track_io_timing: 'off' } })).toEqual({
      track_io_timing: 'off',
    });
    expect(coldStartSettings(warm)).toEqual({});
  });

  it('is recorded in results.json with each sample, and read back', () => {
    const s = sample({
      round: 1,
      workload: 'cold',
      clients: 1,
      arm: 'base',
      metrics: { tps: 100, bufferReadsPerTx: 2 },
      steady: {
        version: 1,
        transactions: 100,
        elapsedS: 1,
        deltas: { blksRead: 200 },
        unavailable: [],
        cold: { restarted: true, pageCacheDropped: false },
      },
    });
    const doc = document(['base'], { cold: [1] }, 1, [s]);
    const parsed = resultsSchema.parse(JSON.parse(JSON.stringify(doc)));
    expect(parsed.samples[0]!.steady).toMatchObject({ cold: { restarted: true, pageCacheDropped: false } });
  });
});

describe('dropping the page cache', () => {
  const dirs: string[] = [];
  afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  it('writes 1 to drop_caches', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pgperf-drop-'));
    dirs.push(dir);
    const file = path.join(dir, 'drop_caches');
    await writeFile(file, '0\n');
    expect(await dropPageCache(file)).toEqual({ dropped: true });
    expect(await readFile(file, 'utf8')).toBe('1\n');
  });

  it('says why where it may not, and never throws', async () => {
    const out = await dropPageCache('/nonexistent-dir/drop_caches');
    expect(out.dropped).toBe(false);
    expect(out).toMatchObject({ reason: expect.stringMatching(/could not be written .*ENOENT/) });
  });
});
