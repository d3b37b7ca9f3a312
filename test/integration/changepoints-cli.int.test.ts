/**
 * `pgperf changepoints` as a user runs it (the CLI through tsx), on real files: the reference E-Divisive
 * series (test/fixtures/stats/vectors.json) and the per-night medians of the noisy-runner history
 * (test/fixtures/history/README.md), plus the bad inputs.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSeries } from '../../src/core/history/series.js';
import { noisyHistory } from '../unit/history/noisy-history.js';

const root = new URL('../../', import.meta.url).pathname;
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-changepoints-'));
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

function pgperf(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/cli.ts'), ...args], {
      cwd: root, // where tsx resolves
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function referenceTps(): Promise<number[]> {
  const vectors = JSON.parse(await readFile(path.join(root, 'test/fixtures/stats/vectors.json'), 'utf8')) as {
    change_point_e_divisive: { tps: number[] };
  };
  return vectors.change_point_e_divisive.tps;
}

describe('pgperf changepoints', () => {
  it('finds the reference change point in a file of nightly TPS, verdict first', async () => {
    const file = path.join(tmp, 'tps.txt');
    await writeFile(file, `# nightly median TPS, oldest first\n${(await referenceTps()).join('\n')}\n`);
    const r = await pgperf(['changepoints', file]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(
      `verdict: 1 event (1 step) in 40 values of ${file} (p < 0.001, min segment 3, magnitude > 0%)`,
    );
    expect(lines[1]).toMatch(/^kind\s+index\s+line\s+before\s+after\s+change\s+p\s+detail$/);
    expect(lines[2]).toMatch(
      /^step\s+25\s+27\s+49965\.2\s+47940\.5\s+-4\.05%\s+8\.1e-15\s+25\/15 values before\/after$/,
    );
  }, 60_000);

  it('gives JSON with a CI on the log scale, and honours --magnitude', async () => {
    const file = path.join(tmp, 'tps.txt');
    const r = await pgperf(['changepoints', file, '--json', '--log']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as {
      n: number;
      changePoints: Array<{
        index: number;
        line: number;
        relativeChange: number;
        ci: { lower: number; upper: number };
      }>;
    };
    expect(report.n).toBe(40);
    expect(report.changePoints).toHaveLength(1);
    expect((report as unknown as { events: Array<{ kind: string; to: number }> }).events).toMatchObject([
      { kind: 'step', to: 25 },
    ]);
    const [cp] = report.changePoints;
    expect([cp!.index, cp!.line]).toEqual([25, 27]);
    expect(cp!.ci.lower).toBeLessThan(cp!.relativeChange);
    expect(cp!.ci.upper).toBeLessThan(0);
    const filtered = await pgperf(['changepoints', file, '--magnitude', '5']);
    expect(filtered.stdout).toMatch(/^verdict: no change in 40 values .*magnitude > 5%\)\n$/);
  }, 60_000);

  it('finds the planted step in the medians of the real noisy-runner history', async () => {
    const [oneClient] = buildSeries(noisyHistory());
    const file = path.join(tmp, 'noisy.txt');
    await writeFile(file, oneClient!.points.map((p) => p.median).join('\n'));
    const r = await pgperf(['changepoints', file, '--log', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { changePoints: Array<{ index: number; relativeChange: number }> };
    expect(report.changePoints.map((c) => c.index)).toEqual([26]);
    expect(report.changePoints[0]!.relativeChange).toBeLessThan(-0.15);
  }, 60_000);

  it('names the file, line and value of a bad line; says how many values are needed', async () => {
    const bad = path.join(tmp, 'bad.txt');
    await writeFile(bad, '100\n101\n# comment\n10O\n');
    let r = await pgperf(['changepoints', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `pgperf: ${bad}:4: '10O' is not a finite number; expected one number per line, oldest first\n`,
    );
    const short = path.join(tmp, 'short.txt');
    await writeFile(short, '1\n2\n3\n4\n5\n');
    r = await pgperf(['changepoints', short]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${short} has 5 values; change-point detection needs at least 6`);
    r = await pgperf(['changepoints', short, '--p', '0']);
    expect(r.stderr).toContain("--p must be a number between 0 and 1, got '0'");
    r = await pgperf(['changepoints', path.join(tmp, 'missing.txt')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot read .*missing\.txt/);
    await writeFile(short, '1\n2\n3\n-4\n5\n6\n');
    r = await pgperf(['changepoints', short, '--log']);
    expect(r.stderr).toContain(`${short}:4: -4 is not positive; --log needs values > 0`);
  }, 60_000);
});
