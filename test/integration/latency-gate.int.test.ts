/**
 * Latency as a gated metric, and the refused impossible plan, through the built CLI against the installed
 * PostgreSQL and pgbench:
 * - a tpcb-like workload with `metrics: [tps, p99]`, head with a 10 ms commit_delay (commit_siblings 0: every
 *   commit waits) — a latency regression no runner noise can hide: p99 comes out regressed (direction only)
 *   and shows in the text report and the PR comment;
 * - 2 rounds over a 7-cell workload cannot reach significance after Holm: refused before anything starts,
 *   run with --force.
 */
import { decideRun } from '../../src/flows/compare/pipeline/decide-run.js';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/core/compare/analysis/recorded-analysis.js';
import { renderMarkdownReport } from '../../src/core/report/markdown/markdown.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { onlyResultsFile, runCli, sameInstallRunArgs } from '../helpers/cli.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';

const binDir = installedBinDir();
let tmp: string;

const pgperf = (args: string[]) => runCli(args, { cwd: tmp });

const runArgs = (workload: string, out: string, extra: string[] = []) =>
  sameInstallRunArgs(binDir, tmp, workload, out, extra);

async function resultsIn(dir: string): Promise<RunResult> {
  return JSON.parse(await readFile(await onlyResultsFile(dir), 'utf8')) as RunResult;
}

const txLogDirs = async () => (await readdir(os.tmpdir())).filter((f) => f.startsWith('pgperf-txlog-'));

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-latency-'));
  await chmod(tmp, 0o755);
});

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('latency gate (metrics: [tps, p99])', () => {
  it('a real commit-latency regression comes out as a p99 regression, in the report and the comment', async () => {
    const file = path.join(tmp, 'writes.yml');
    await writeFile(
      file,
      'name: writes\ntool: pgbench\nbuiltin: tpcb-like\nscale: 1\nclients: [1]\nduration: 2\nwarmup: 1\nrounds: 8\nmetrics: [tps, p99]\n',
    );
    const out = path.join(tmp, 'out-latency');
    const ran = await pgperf(
      runArgs(file, out, [
        '--set',
        'head:commit_delay=10000',
        '--set',
        'head:commit_siblings=0',
        '--no-instructions',
      ]),
    );
    // The gate (default --fail-on regression) fails; the results are saved all the same.
    expect(ran.code, ran.stderr).toBe(1);
    const result = await resultsIn(out);
    expect(result.status).toBe('complete');
    const ok = result.samples.filter((s) => s.status === 'ok');
    expect(ok).toHaveLength(16);
    for (const s of ok) {
      // Every transaction pgbench processed was read from its per-transaction log, and the log is gone.
      expect(s.command).toContain('--log');
      expect(s.counts.loggedTransactions).toBe(s.counts.processed);
      expect(s.metrics.latencyP99Ms).toBeGreaterThan(0);
      expect(s.metrics.latencyP95Ms!).toBeLessThanOrEqual(s.metrics.latencyP99Ms!);
    }
    expect(await txLogDirs()).toEqual([]);

    const comparison = analyse(result);
    expect(comparison.gatedMetrics).toEqual(['tps', 'latencyP99Ms']);
    const arm = comparison.comparisons[0]!;
    expect(arm.familySize).toBe(2);
    const p99 = arm.otherMetricCells[0]!;
    expect(p99).toMatchObject({
      id: 'writes@1',
      metric: 'latencyP99Ms',
      better: 'lower',
      verdict: 'regression',
    });
    expect(p99.deltaPct!).toBeGreaterThan(0);
    expect(arm.decidingCells).toContain('writes@1 p99');
    expect(comparison.verdict).toBe('regression');

    expect(ran.stdout.split('\n')[0]).toMatch(/^FAILED: \d regressions?: writes at 1 client, /);
    expect(ran.stdout).toMatch(/latency p99 \(ms, lower is better\):/);
    const comment = renderMarkdownReport({
      result,
      comparison,
      decision: decideRun(result, comparison),
      commentId: 'it',
    });
    expect(comment).toMatch(/\*\*latency p99\*\* \(ms, lower is better: a rise is a regression\)/);
    expect(comment).toMatch(/\| 1 \| 8\/8 \|[^\n]*\| ❌ regression/);
    expect(processesMentioning(tmp)).toEqual([]);
  }, 600_000);
});

describe('sysbench latency percentiles', () => {
  it('a workload gating on p95 and p99 runs sysbench with its histogram and records both', async () => {
    const file = path.join(tmp, 'sb.yml');
    await writeFile(
      file,
      'name: sb\ntool: sysbench\nscript: oltp_point_select\ntables: 1\ntableSize: 500\nclients: [2]\nduration: 1\nwarmup: 0\nrounds: 2\nmetrics: [tps, p95, p99]\n',
    );
    const out = path.join(tmp, 'out-sysbench');
    const ran = await pgperf(runArgs(file, out, ['--force']));
    // The same install twice in 2 rounds: nothing can fail the gate.
    expect(ran.code, ran.stderr).toBe(0);
    const result = await resultsIn(out);
    const ok = result.samples.filter((s) => s.status === 'ok');
    expect(ok).toHaveLength(4);
    for (const s of ok) {
      expect(s.command).toContain('--histogram=on');
      expect(s.metrics.latencyP95Ms).toBeGreaterThan(0);
      expect(s.metrics.latencyP95Ms!).toBeLessThanOrEqual(s.metrics.latencyP99Ms!);
      // sysbench's own 95th-percentile line comes from the same histogram by the same rule (printed to 2
      // decimals, the histogram rows to 3).
      expect(Math.abs(s.metrics.latencyP95Ms! - s.metrics.latencyPctMs!)).toBeLessThanOrEqual(0.0051);
    }
    expect(ran.stdout).toMatch(/latency p95 \(ms, lower is better\):/);
    expect(ran.stdout).toMatch(/latency p99 \(ms, lower is better\):/);
  }, 600_000);
});

describe('an impossible plan', () => {
  let file: string;
  beforeAll(async () => {
    file = path.join(tmp, 'seven.yml');
    await writeFile(
      file,
      'name: seven\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1, 2, 3, 4, 5, 6, 7]\nduration: 1\nwarmup: 0\nrounds: 5\n',
    );
  });

  it('is refused before anything starts, naming the cells, the rounds and the smallest p against alpha', async () => {
    const out = path.join(tmp, 'out-refused');
    const ran = await pgperf(runArgs(file, out, ['--rounds', '2']));
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/the plan cannot reach significance in any cell: Holm over 7 hypotheses/);
    expect(ran.stderr).toMatch(
      /seven \(seven@1, seven@2, seven@3, seven@4, seven@5, seven@6, seven@7\): 2 rounds/,
    );
    expect(ran.stderr).toMatch(/smallest p 0\.33 x 7 = 1; each is >= alpha 0\.05/);
    expect(ran.stderr).toMatch(/Plan at least \d+ rounds .*--force/);
    await expect(readdir(out)).rejects.toThrow(/ENOENT/);
  });

  it('runs with --force, warning that it cannot decide', async () => {
    const out = path.join(tmp, 'out-forced');
    const ran = await pgperf(runArgs(file, out, ['--rounds', '2', '--force']));
    // The same install twice in 2 rounds: nothing can fail the gate.
    expect(ran.code, ran.stderr).toBe(0);
    const result = await resultsIn(out);
    expect(result.status).toBe('complete');
    expect(result.samples.filter((s) => s.status === 'ok')).toHaveLength(28);
    expect(result.warnings.join('\n')).toMatch(/can never reach significance after Holm/);
    // A plain TPS workload writes no per-transaction log.
    expect(result.samples.every((s) => !s.command.includes('--log'))).toBe(true);
  }, 600_000);
});
