/**
 * The gate's own error rates (#42 item 6): the drill's size, its script, the calibration job's drills judged
 * by the real compare and decision code, the record stored on the A/A run and read back from a real
 * directory store, and the line every comparison on the runner then states.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareRun } from '../../../src/core/compare/analysis/compare-run.js';
import { analyse } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { runnerGateRecord } from '../../../src/core/compare/decision/gate-record.js';
import type { CalibrationRecord } from '../../../src/core/results/calibration-record.js';
import type { RunResult } from '../../../src/core/results/result-types.js';
import { gateRecordText } from '../../../src/core/report/evidence/gate-record-line.js';
import { renderComparisonText } from '../../../src/core/report/terminal/comparison-text.js';
import { renderMailReport } from '../../../src/core/report/mail/plain-text-mail.js';
import { renderMarkdownReport } from '../../../src/core/report/markdown/markdown.js';
import { parseWorkload } from '../../../src/drivers/load-workload.js';
import type { PgbenchWorkload } from '../../../src/drivers/pgbench/pgbench-workload.js';
import { runCalibration } from '../../../src/flows/calibrate/calibrate-job.js';
import { drillRows, probeRatios, PROBE_ROWS } from '../../../src/flows/calibrate/drill-size.js';
import { drillStatement, drillWorkload } from '../../../src/flows/calibrate/drill-workload.js';
import type { MeasureOptions } from '../../../src/flows/calibrate/drills.js';
import { reportInputOf } from '../../../src/flows/compare/pipeline/report-input.js';
import type { PipelineRequest } from '../../../src/flows/compare/pipeline/pipeline.js';
import { runnerId } from '../../../src/flows/compare/noise/runner-noise.js';
import { loadGateRecord } from '../../../src/flows/compare/noise/runner-gate-record.js';
import { DirStore } from '../../../src/store/dir/dir-store.js';
import { readResults } from '../../../src/store/read-results.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';

const dirs: string[] = [];
const tmp = async () => {
  const d = await mkdtemp(path.join(os.tmpdir(), 'pgperf-gate-record-'));
  dirs.push(d);
  return d;
};
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const selectOnly = () =>
  parseWorkload(
    'name: ro\ntool: pgbench\nbuiltin: select-only\nclients: [1, 2]\nrounds: 12\n',
    'ro.yml',
  ) as PgbenchWorkload;

describe('the drill size', () => {
  it('solves N = R · d/(1−d) · q/(1−q) from the probe, and refuses a probe that barely slowed head', () => {
    // Half the throughput at 20000 rows: a row costs 1/20000 of a transaction; -3% needs 3/97 of one.
    expect(drillRows({ probeRows: 20_000, ratio: 0.5, targetPct: 3 })).toEqual({ rows: 619 });
    // A probe 10x the transaction (q = 1/11): a row costs 1/2000 of it.
    expect(drillRows({ probeRows: 20_000, ratio: 1 / 11, targetPct: 3 })).toEqual({ rows: 62 });
    const refused = drillRows({ probeRows: 20_000, ratio: 0.98, targetPct: 3 });
    expect(refused).toEqual({
      problem: expect.stringMatching(/changed throughput by -2\.0%, less than the 5%/),
    });
    expect(drillRows({ probeRows: 20_000, ratio: 1.02, targetPct: 3 })).toHaveProperty('problem');
  });

  it("reads the probe's ratio per workload: per cell medians, then the median over cells", () => {
    const probe = syntheticRun({
      seed: 1,
      rounds: 3,
      arms: ['base', 'drill'],
      workloads: { 'ro-drill': [1, 2] },
      noise: 0,
      effect: (arm, _w, clients) => (arm === 'drill' ? (clients === 1 ? 0.4 : 0.6) : 1),
    });
    expect(probeRatios(probe, 'base', 'drill').get('ro-drill')).toBeCloseTo(0.5, 10);
  });
});

describe('the drill workload', () => {
  it("is the builtin's script plus a statement whose rows only head's setting switches on", async () => {
    const dir = await tmp();
    const w = await drillWorkload(selectOnly(), 619, dir);
    expect(w).toMatchObject({ name: 'ro-drill', tool: 'pgbench', clients: [1, 2] });
    expect(w.builtin).toBeUndefined();
    expect(w.scripts).toHaveLength(1);
    expect(await readFile(w.scripts![0]!.file, 'utf8')).toBe(
      '\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n' +
        "SELECT sum(i) FROM generate_series(1, 619 * current_setting('pgperf.drill')::int) AS drill(i);\n",
    );
    expect(drillStatement(7)).toContain('generate_series(1, 7 *');
  });
});

/** A calibration job whose measurements are synthetic documents, judged by the real compare and decide. */
async function calibrateWith(drillFactor: number) {
  const dir = await tmp();
  const calls: Array<{ request: Omit<PipelineRequest, 'runDir'>; options: MeasureOptions }> = [];
  const kept: RunResult[] = [];
  const outcome = await runCalibration(
    {
      binDir: '/opt/pg/bin',
      workloads: [selectOnly()],
      analysis: {},
      failOn: 'regression',
    },
    {
      measure: async (request, options) => {
        calls.push({ request, options });
        const names = request.workloads.map((w) => w.name);
        const result =
          options.name === 'calibration'
            ? syntheticRun({ seed: 2, rounds: 12, arms: ['a', 'b'], workloads: { ro: [1, 2] }, noise: 0.005 })
            : syntheticRun({
                seed: 3,
                rounds: options.name === 'drill' ? 12 : 2,
                arms: ['base', 'drill'],
                workloads: Object.fromEntries(names.map((n) => [n, [1, 2]])),
                // A noiseless probe: the size it gives is exact.
                noise: options.name === 'drill-probe' ? 0 : 0.005,
                effect: (arm) => (arm !== 'drill' ? 1 : options.name === 'drill' ? drillFactor : 0.5),
              });
        const resultsFile = path.join(dir, `${options.name}.json`);
        return {
          result,
          comparison: compareRun(result),
          resultsFile,
          ...(options.store ? { archived: { id: 'aa-1', description: 'test store' } } : {}),
        };
      },
      keep: async (result) => void kept.push(result),
    },
  );
  return { outcome, calls, kept, dir };
}

describe('the calibration job with drills', () => {
  it('probes, sizes and runs the drill, catches a -3% cost, and keeps the record on the A/A run', async () => {
    const { outcome, calls, kept, dir } = await calibrateWith(0.97);
    expect(calls.map((c) => [c.options.name, c.options.store])).toEqual([
      ['calibration', true],
      ['drill-probe', false],
      ['drill', false],
    ]);
    const [, probe, drill] = calls;
    expect(probe!.request).toMatchObject({
      rounds: 2,
      durationS: 5,
      confirmRounds: 0,
      arms: {
        arms: [
          { label: 'base', settings: { 'pgperf.drill': '0' } },
          { label: 'drill', settings: { 'pgperf.drill': '1' } },
        ],
      },
    });
    // The probe halved throughput at PROBE_ROWS: the drill sums 619 rows (-3%: 1.5 x the 2% threshold).
    const script = await readFile((drill!.request.workloads[0] as PgbenchWorkload).scripts![0]!.file, 'utf8');
    expect(script).toContain(`generate_series(1, 619 * current_setting('pgperf.drill')::int)`);
    expect(PROBE_ROWS).toBe(20_000);
    expect(outcome.record).toMatchObject({
      aa: { comparisons: 2, falseAlarms: 0, cells: [] },
      drills: { comparisons: 2, caught: 2, skipped: [] },
    });
    expect(
      outcome.record!.drills!.cells.map((c) => [c.id, c.injectedPct, c.rows, c.verdict, c.caught]),
    ).toEqual([
      ['ro@1', 3, 619, 'regression', true],
      ['ro@2', 3, 619, 'regression', true],
    ]);
    // Stored again (the store replaces the run by id), and results.json rewritten with the record.
    expect(kept).toHaveLength(1);
    expect(kept[0]!.calibrationRecord).toEqual(outcome.record);
    const file = JSON.parse(await readFile(path.join(dir, 'calibration.json'), 'utf8')) as RunResult;
    expect(file.calibrationRecord).toEqual(outcome.record);
  });

  it('counts a drill the gate let pass as missed', async () => {
    const { outcome } = await calibrateWith(0.999);
    expect(outcome.record!.drills).toMatchObject({ comparisons: 2, caught: 0 });
    expect(outcome.record!.drills!.cells.every((c) => !c.caught && c.verdict !== 'regression')).toBe(true);
  });
});

const record = (aa: [number, number], drills?: [number, number]): CalibrationRecord => ({
  aa: { comparisons: aa[0], falseAlarms: aa[1], cells: [] },
  ...(drills
    ? {
        drills: {
          comparisons: drills[0],
          caught: drills[1],
          cells: Array.from({ length: drills[0] }, (_, i) => ({
            id: `ro@${i + 1}`,
            injectedPct: 3,
            rows: 600,
            deltaPct: -3,
            verdict: 'regression',
            caught: i < drills[1],
          })),
          skipped: [],
        },
      }
    : {}),
});

describe("the runner's record and its line", () => {
  it('sums the calibrations of the last 90 days before the newest and says their dates', () => {
    const r = runnerGateRecord(
      [
        { startedAt: '2026-11-20T03:00:00Z', record: record([20, 1], [10, 9]) },
        { startedAt: '2026-11-13T03:00:00Z', record: record([20, 0], [10, 9]) },
        { startedAt: '2026-06-01T03:00:00Z', record: record([20, 5], [10, 0]) }, // outside the window
      ],
      'r1',
    );
    expect(r).toEqual({
      runner: 'r1',
      calibrations: 2,
      from: '2026-11-13',
      to: '2026-11-20',
      aa: { comparisons: 40, falseAlarms: 1 },
      drills: { comparisons: 20, caught: 18, injectedPct: [3] },
    });
    expect(gateRecordText(r!)).toBe(
      'this runner: 40 A/A comparisons, 1 false alarm; injected -3% regressions caught 18 of 20 (calibrated 2026-11-13 to 2026-11-20, 2 runs)',
    );
    const one = runnerGateRecord([{ startedAt: '2026-11-20T03:00:00Z', record: record([2, 0]) }], 'r1')!;
    expect(gateRecordText(one)).toBe(
      'this runner: 2 A/A comparisons, no false alarm; no injected drill (calibrated 2026-11-20)',
    );
    expect(runnerGateRecord([], 'r1')).toBeUndefined();
  });

  it('is read back from a directory store for this runner only, and stated by every report of a comparison', async () => {
    const store = await DirStore.open(path.join(await tmp(), 'store'), { warn: () => {}, write: true });
    const aa = (host: string, startedAt: string, rec: CalibrationRecord): RunResult => {
      const r = syntheticRun({ seed: 4, rounds: 3, arms: ['a', 'b'], workloads: { ro: [1, 2] } });
      return {
        ...r,
        runId: `aa-${host}-${startedAt.slice(0, 10)}`,
        startedAt,
        calibration: true,
        environment: { ...r.environment, hostname: host, cpuModel: `${host} CPU` },
        calibrationRecord: rec,
      };
    };
    const mine = aa('runner-a', '2026-11-20T03:00:00Z', record([20, 1], [10, 9]));
    await store.save(mine);
    await store.save(aa('runner-a', '2026-11-13T03:00:00Z', record([20, 0], [10, 9])));
    await store.save(aa('runner-b', '2026-11-21T03:00:00Z', record([20, 7], [10, 0])));
    const runner = runnerId(mine.environment);
    const cells = [{ workload: 'ro', clients: 1 }];
    const stored = await loadGateRecord(store, runner, cells);
    expect(stored).toMatchObject({ calibrations: 2, aa: { comparisons: 40, falseAlarms: 1 } });
    // A comparison of another workload finds none; nor does another runner's id.
    expect(await loadGateRecord(store, runner, [{ workload: 'rw', clients: 1 }])).toBeUndefined();
    await store.close();

    // A comparison's document keeps it (as the pipeline records it); every surface states it.
    const dir = await tmp();
    const compared = {
      ...syntheticRun({ seed: 5, rounds: 12, workloads: { ro: [1] } }),
      gateRecord: stored!,
    };
    const { writeResults } = await import('../../../src/store/write-results.js');
    await writeResults(path.join(dir, 'results.json'), compared);
    const read = await readResults(path.join(dir, 'results.json'), { warn: (w) => expect.fail(w) });
    const comparison = analyse(read);
    const input = reportInputOf(read, comparison, { failOn: 'regression' });
    const line =
      'this runner: 40 A/A comparisons, 1 false alarm; injected -3% regressions caught 18 of 20 (calibrated 2026-11-13 to 2026-11-20, 2 runs)';
    expect(renderComparisonText(comparison, input.decision)).toContain(line);
    expect(renderMarkdownReport({ ...input, commentId: 'default' })).toContain(line);
    expect(renderMailReport(input).replace(/\s+/g, ' ')).toContain(line.replace('this', 'This'));
    // Without a record, no line.
    const bare = analyse(syntheticRun({ seed: 5, rounds: 12, workloads: { ro: [1] } }));
    expect(renderComparisonText(bare, input.decision)).not.toContain('this runner');
  });
});
