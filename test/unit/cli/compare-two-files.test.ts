/**
 * `pgperf compare BASE.json HEAD.json`: the base arm of one run against the head arm of another, measured
 * apart, through the CLI's real path (main(), files on disk). The documents are built from the captured
 * results fixture (test/fixtures/results/README.md), one workload at one client count, with TPS chosen per
 * arm so that using the wrong arm of either file would change the numbers the report shows.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult, Sample } from '../../../src/core/results/result-types.js';
import type { CellComparison } from '../../../src/core/compare/comparison-types.js';
import { mergeTwoRuns } from '../../../src/flows/compare/two-runs.js';
import { ROOT } from '../../helpers/cli.js';
import { runMain } from '../../helpers/main-in-process.js';
import { useTmpDir } from '../../helpers/tmp-dir.js';
import { DirStore } from '../../../src/store/dir/dir-store.js';
import type { CalibrationRecord } from '../../../src/core/results/calibration-record.js';
import { runnerGateRecord } from '../../../src/core/compare/decision/gate-record.js';
import { runnerId } from '../../../src/flows/compare/noise/runner-noise.js';

const FIXTURE = path.join(ROOT, 'test/fixtures/results/pgperf-15-smoke-select-only.json');
const template = JSON.parse(readFileSync(FIXTURE, 'utf8')) as RunResult;
const tmp = useTmpDir('pgperf-compare-two-');

const ROUNDS = 8;

/**
 * A run of workload smoke at `clients` over 8 rounds, each arm's TPS its level plus a little spread;
 * `edit` changes the document further.
 */
function run(
  startedAt: string,
  tps: Record<string, number>,
  {
    clients = [1],
    edit = (d: RunResult) => d,
  }: { clients?: number[]; edit?: (d: RunResult) => RunResult } = {},
): RunResult {
  const sample = template.samples.find((s) => s.workload === 'smoke')!;
  const samples: Sample[] = Object.entries(tps).flatMap(([arm, level]) =>
    clients.flatMap((c) =>
      Array.from({ length: ROUNDS }, (_, i) => ({
        ...sample,
        round: i + 1,
        arm,
        clients: c,
        metrics: { ...sample.metrics, tps: level * (1 + ((i % 4) - 1.5) / 200) },
      })),
    ),
  );
  const doc: RunResult = {
    ...template,
    startedAt,
    updatedAt: startedAt,
    workloads: { smoke: { ...(template.workloads.smoke as object), clients, rounds: ROUNDS } },
    plan: {
      ...template.plan,
      rounds: ROUNDS,
      cells: clients.map((c) => ({ workload: 'smoke', clients: c })),
      executed: [],
    },
    samples,
    warnings: [],
  };
  return edit(doc);
}

async function file(name: string, doc: RunResult): Promise<string> {
  const at = path.join(tmp(), name);
  await writeFile(at, JSON.stringify(doc));
  return at;
}

/** The one cell of a `--json` comparison. */
function onlyCell(stdout: string): CellComparison {
  const out = JSON.parse(stdout) as { comparison: { comparisons: Array<{ cells: CellComparison[] }> } };
  const cells = out.comparison.comparisons.flatMap((a) => a.cells);
  expect(cells).toHaveLength(1);
  return cells[0]!;
}

describe('pgperf compare BASE.json HEAD.json', () => {
  it("compares the first file's base arm with the second file's head arm, unpaired, and says they were measured apart", async () => {
    // The arms that must not be used are far off: a mix-up would show in the medians.
    const a = await file('a.json', run('2026-11-20T10:00:00.000Z', { base: 1000, head: 5000 }));
    const b = await file('b.json', run('2026-11-23T10:00:00.000Z', { base: 100, head: 800 }));
    const ran = await runMain(['compare', a, b]);
    expect(ran.code, ran.stderr).toBe(1);
    expect(ran.stdout.split('\n')[0]).toMatch(/^FAILED: .*smoke at 1 client, TPS -20\.\d+%/);
    expect(ran.stdout).toContain(
      `(unpaired test); no sentinel: base (${a}) and head (${b}) come from two runs, not interleaved`,
    );
    expect(ran.stdout).toContain('measured 3 day(s) ago');
    expect(ran.stderr).toContain(
      `compare: base is arm 'base' of ${a}, head is arm 'head' of ${b}: two runs measured apart, not interleaved`,
    );
    expect(ran.stdout).toMatch(
      /warnings:\n {2}- base and head were measured apart, not interleaved: .*the test is unpaired \(Mann-Whitney\)/,
    );

    const json = await runMain(['compare', a, b, '--json']);
    const cell = onlyCell(json.stdout);
    expect(cell.test).toBe('mann-whitney');
    expect(cell.pairs).toBeNull();
    expect(cell.base.median).toBeCloseTo(1000, -1);
    expect(cell.head.median).toBeCloseTo(800, -1);
    expect(cell.verdict).toBe('regression');
  });

  it("takes a one-arm run's only arm, and labels a head arm called base 'head'", async () => {
    const only = (label: string) => (d: RunResult) => ({ ...d, arms: [{ ...d.arms[0]!, label }] });
    const a = await file(
      'night1.json',
      run('2026-11-20T02:00:00.000Z', { master: 1000 }, { edit: only('master') }),
    );
    const b = await file(
      'night2.json',
      run('2026-11-21T02:00:00.000Z', { base: 1000 }, { edit: only('base') }),
    );
    const ran = await runMain(['compare', a, b, '--json']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain(`base is arm 'master' of ${a}, head is arm 'base' of ${b}`);
    const cell = onlyCell(ran.stdout);
    expect([cell.base.median, cell.head.median].map((m) => Math.round(m!))).toEqual([1000, 1000]);
    expect(cell.verdict).toBe('no-change');
  });

  it('compares the cells both measured and names the others; warns about settings that differ, with both values', async () => {
    const a = await file(
      'a.json',
      run('2026-11-20T10:00:00.000Z', { base: 1000, head: 1000 }, { clients: [1, 2] }),
    );
    const offHead = (d: RunResult) => ({
      ...d,
      arms: [d.arms[0]!, { ...d.arms[1]!, settingOverrides: { synchronous_commit: 'off' } }],
    });
    const b = await file(
      'b.json',
      run('2026-11-20T12:00:00.000Z', { base: 1000, head: 1000 }, { clients: [1, 4], edit: offHead }),
    );
    const ran = await runMain(['compare', a, b]);
    expect(ran.stdout).toContain(`not compared: smoke@2 (measured in ${a} only)`);
    expect(ran.stdout).toContain(`not compared: smoke@4 (measured in ${b} only)`);
    expect(ran.stdout).toContain(
      "the two runs differ in what they were measured under: synchronous_commit: base (not set), head 'off'",
    );
    expect(ran.stdout).toContain('fingerprint mismatch allowed (synchronous_commit differ)');
    expect(ran.stdout).toMatch(/^workload smoke/m);
    expect(ran.stdout).not.toMatch(/^\s+[24]\s+\d+\/\d+/m);
  });

  it('refuses workloads defined differently, runs without a common cell and shards, naming what is wrong', async () => {
    const a = await file('a.json', run('2026-11-20T10:00:00.000Z', { base: 1000, head: 1000 }));
    const longer = (d: RunResult) => ({
      ...d,
      workloads: { smoke: { ...(d.workloads.smoke as object), duration: 60 } },
    });
    const b = await file(
      'b.json',
      run('2026-11-20T12:00:00.000Z', { base: 1000, head: 1000 }, { edit: longer }),
    );
    const defined = await runMain(['compare', a, b]);
    expect(defined.code).toBe(2);
    expect(defined.stderr).toContain(
      `pgperf: ${a} and ${b} ran the same workload defined differently (duration (workload smoke): base '2', head '60'): they measured different things`,
    );
    expect(defined.stdout).toBe('');

    const c = await file(
      'c.json',
      run('2026-11-20T12:00:00.000Z', { base: 1000, head: 1000 }, { clients: [8] }),
    );
    const apart = await runMain(['compare', a, c]);
    expect(apart.code).toBe(2);
    expect(apart.stderr).toContain(
      `have no cell in common with a completed run of both arms: base (arm 'base') measured smoke@1, head (arm 'head') smoke@8`,
    );

    const shard = await file(
      'shard.json',
      run(
        '2026-11-20T12:00:00.000Z',
        { base: 1000, head: 1000 },
        {
          edit: (d) => ({
            ...d,
            plan: { ...d.plan, shard: { planId: 'p', index: 2, count: 3, allCells: d.plan.cells } },
          }),
        },
      ),
    );
    const sharded = await runMain(['compare', a, shard]);
    expect(sharded.code).toBe(2);
    expect(sharded.stderr).toContain(
      `${shard} is shard 2/3 of a run: comparing two results files takes whole runs`,
    );
  });

  it('leaves out, and names, what compares arms measured in one run', () => {
    const confirmed = run(
      '2026-11-20T12:00:00.000Z',
      { base: 1000, head: 900 },
      {
        edit: (d) => ({ ...d, confirmation: { rounds: 6 } as RunResult['confirmation'], runId: 'r2' }),
      },
    );
    const merged = mergeTwoRuns(run('2026-11-20T10:00:00.000Z', { base: 1000, head: 1000 }), confirmed, {
      base: 'a.json',
      head: 'b.json',
    });
    expect(merged.confirmation).toBeUndefined();
    expect(merged.runId).toBeUndefined();
    expect(merged.baseline?.runId).toBe('a.json');
    expect(merged.warnings).toContain(
      'not compared: the confirmation block of b.json (they compare arms measured in one run)',
    );
    expect(merged.arms.map((a) => a.label)).toEqual(['base', 'head']);
    expect(new Set(merged.samples.map((s) => `${s.arm}:${s.metrics.tps! > 950 ? 'a' : 'b'}`))).toEqual(
      new Set(['base:a', 'head:b']),
    );
  });

  it('three files are still too many, and one file compares as before', async () => {
    const a = await file('a.json', run('2026-11-20T10:00:00.000Z', { base: 1000, head: 1000 }));
    const three = await runMain(['compare', a, a, a]);
    expect(three.code).toBe(2);
    expect(three.stderr).toMatch(/too many arguments for 'compare'\. Expected 2 arguments but got 3/);
    const one = await runMain(['compare', a]);
    expect(one.stdout).not.toContain('not interleaved');
    expect(one.stdout.split('\n')[1]).toBe("compared: 'head' vs base 'base' (TPS, higher is better)");
  });

  it("states the gate record of the runner that measured both runs: the store's, else head's own", async () => {
    // One A/A calibration of this runner (the fixture's machine) with its record, in a directory store.
    const storeDir = path.join(tmp(), 'store');
    const store = await DirStore.open(storeDir, { warn: () => {}, write: true });
    const calibration: CalibrationRecord = {
      aa: { comparisons: 20, falseAlarms: 1, cells: ['smoke@1'] },
      drills: {
        comparisons: 4,
        caught: 3,
        cells: [1, 2, 3, 4].map((i) => ({
          id: 'smoke@1',
          injectedPct: 3,
          rows: 600,
          deltaPct: -3,
          verdict: i <= 3 ? 'regression' : 'inconclusive',
          caught: i <= 3,
        })),
        skipped: [],
      },
    };
    const aa = run('2026-11-18T10:00:00.000Z', { base: 1000, head: 1000 });
    await store.save({ ...aa, runId: 'aa-1', calibration: true, calibrationRecord: calibration });
    await store.close();
    const line =
      'this runner: 20 A/A comparisons, 1 false alarm; injected -3% regressions caught 3 of 4 (calibrated 2026-11-18)';
    const a = await file('a.json', run('2026-11-20T10:00:00.000Z', { base: 1000, head: 1000 }));
    const b = await file('b.json', run('2026-11-23T10:00:00.000Z', { base: 1000, head: 800 }));
    const ran = await runMain(['compare', a, b, '--store', storeDir]);
    expect(ran.stdout).toContain(line);
    const markdown = await runMain(['compare', a, b, '--store', storeDir, '--format', 'markdown']);
    expect(markdown.stdout).toContain(line);

    // No calibration in the store: the record head kept when it ran (of its own runner) is stated.
    const empty = path.join(tmp(), 'empty-store');
    const kept = {
      ...runnerGateRecord([{ startedAt: aa.startedAt, record: calibration }], runnerId(aa.environment))!,
    };
    const headKept = await file('b-kept.json', {
      ...run('2026-11-23T10:00:00.000Z', { base: 1000, head: 800 }),
      gateRecord: kept,
    });
    expect((await runMain(['compare', a, headKept, '--store', empty])).stdout).toContain(line);
    expect((await runMain(['compare', a, b, '--store', empty])).stdout).not.toContain('this runner:');

    // Runs of two machines: no one runner's record.
    const elsewhere = await file(
      'a-elsewhere.json',
      run(
        '2026-11-20T10:00:00.000Z',
        { base: 1000, head: 1000 },
        {
          edit: (d) => ({ ...d, environment: { ...d.environment, cpuModel: 'another CPU' } }),
        },
      ),
    );
    const apart = await runMain(['compare', elsewhere, b, '--store', storeDir]);
    expect(apart.code, apart.stderr).toBe(1);
    expect(apart.stdout).not.toContain('this runner:');
  });
});
