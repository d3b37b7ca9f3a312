import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  addAnalysisOptions,
  checkMetricHeld,
  type AnalysisFlags,
} from '../../../src/adapters/cli/analysis-flags.js';
import { compareCommand } from '../../../src/adapters/cli/commands/compare.js';
import { heldMetrics } from '../../../src/core/compare/metric-option.js';
import { readResults } from '../../../src/store/read-results.js';
import type { RunResult } from '../../../src/core/results/result-types.js';

/** Real results of pgbench smoke and select-only: tps, latency avg and stddev, no percentiles. */
const fixture = new URL('../../fixtures/results/pgperf-15-smoke-select-only.json', import.meta.url).pathname;
let dir: string;
let results: RunResult;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pgperf-metric-flag-'));
  results = await readResults(fixture);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

function parseMetric(value: string): AnalysisFlags {
  const cmd = addAnalysisOptions(new Command('compare'), 'compare')
    .exitOverride()
    .configureOutput({ writeErr: () => {} });
  cmd.parse(['--metric', value], { from: 'user' });
  return cmd.opts<AnalysisFlags>();
}

/** Results whose select-only runs recorded p99 too (as `metrics: [tps, p99]` would). */
function withP99(only?: string): RunResult {
  return {
    ...results,
    samples: results.samples.map((s) =>
      (only === undefined || s.workload === only) && s.metrics.latencyAvgMs !== undefined
        ? { ...s, metrics: { ...s.metrics, latencyP99Ms: 3 * s.metrics.latencyAvgMs } }
        : s,
    ),
  };
}

describe('--metric', () => {
  it('takes the short names and the metric keys', () => {
    expect(parseMetric('p99').metric).toBe('latencyP99Ms');
    expect(parseMetric('latencyP99Ms').metric).toBe('latencyP99Ms');
    expect(parseMetric('latency-avg').metric).toBe('latencyAvgMs');
    expect(parseMetric('qps').metric).toBe('qps');
  });

  it.each([
    ['bogus', /got 'bogus'$/],
    ['P99', /got 'P99' \(did you mean p99\?\)$/],
    ['latency_avg', /got 'latency_avg' \(did you mean latency-avg\?\)$/],
  ])('refuses %s listing every accepted name', (value, tail) => {
    expect(() => parseMetric(value)).toThrow(
      /--metric must be one of tps, qps, latency-avg, latencyStddevMs, latencyPctMs, p95, p99, wal-bytes, wal-records, wal-fpi, buffer-hits, buffer-reads, read-time, io-reads, backend-cpu, memory-peak, memory-median, temp-bytes, temp-files, instructions \(also the keys latencyAvgMs, latencyP95Ms, latencyP99Ms, walBytesPerTx, walRecordsPerTx, walFpiPerTx, bufferHitsPerTx, bufferReadsPerTx, readTimeMsPerTx, ioReadsPerTx, backendCpuUsPerTx, backendMemoryPeakBytes, backendMemoryMedianBytes, tempBytesPerTx, tempFilesPerTx\)/,
    );
    expect(() => parseMetric(value)).toThrow(tail);
  });

  it('knows what each workload of a results document recorded', () => {
    expect(heldMetrics(results)).toEqual([
      { workload: 'select-only', held: ['tps', 'latencyAvgMs', 'latencyStddevMs'] },
      { workload: 'smoke', held: ['tps', 'latencyAvgMs', 'latencyStddevMs'] },
    ]);
  });

  it('refuses a metric the results never recorded: what was asked, what they hold, how to get it', () => {
    expect(() => checkMetricHeld(results, 'latencyP99Ms')).toThrow(
      "--metric p99: the results hold no latency p99 values for workloads select-only, smoke; their runs recorded tps, latency-avg, latencyStddevMs. Give --metric one of those, or record p99: add it to the workload's metrics field (metrics: [tps, p99]) and run again",
    );
    expect(() => checkMetricHeld(results, 'qps')).toThrow(
      /^--metric qps: the results hold no QPS values .*\(sysbench workloads record it, pgbench ones do not\)$/,
    );
    // Only the workloads that lack it are named.
    expect(() => checkMetricHeld(withP99('select-only'), 'latencyP99Ms')).toThrow(
      /^--metric p99: the results hold no latency p99 values for workload smoke; their runs recorded tps, /,
    );
    expect(() => checkMetricHeld(withP99(), 'latencyP99Ms')).not.toThrow();
    expect(() => checkMetricHeld(results, 'latencyAvgMs')).not.toThrow();
  });

  it('compare refuses it before analysing, and compares on it when the results hold it', async () => {
    let stdout = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      stdout += String(chunk);
      return true;
    });
    const compare = (args: string[]) => compareCommand().exitOverride().parseAsync(args, { from: 'user' });
    const copy = path.join(dir, 'results.json');
    await copyFile(fixture, copy);
    await expect(compare([copy, '--metric', 'p99'])).rejects.toThrow(
      /^--metric p99: the results hold no latency p99/,
    );
    expect(stdout).toBe('');
    const held = path.join(dir, 'p99.json');
    await writeFile(held, JSON.stringify(withP99()));
    await compare([held, '--metric', 'p99']);
    expect(stdout).toMatch(/compared: 'head' vs base 'base' \(latency p99, lower is better\)/);
    expect(stdout).toMatch(/base latency p99 \(median\)/);
  });
});
