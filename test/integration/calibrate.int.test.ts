import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/adapters/cli/commands/main.js';
import type { Calibration } from '../../src/core/compare/calibration-types.js';
import type { CalibrationRecord } from '../../src/core/results/calibration-record.js';
import { installedBinDir } from '../../testkit/postgres.js';

const binDir = installedBinDir();
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-calibrate-'));
  await chmod(tmp, 0o755); // the run-as user must reach the clusters inside
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('pgperf calibrate (real PostgreSQL and pgbench)', () => {
  it('measures one install as both arms, reports its noise per cell and runs an injected drill', async () => {
    const file = path.join(tmp, 'cal.yml');
    await writeFile(
      file,
      'name: cal\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 3\n',
    );
    await chmod(file, 0o644);
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    let code: number;
    try {
      code = await main([
        'calibrate',
        '--bin',
        binDir,
        '--workload',
        file,
        '--no-store',
        '--json',
        '--out',
        path.join(tmp, 'out'),
        '--tmp-dir',
        tmp,
      ]);
    } finally {
      write.mockRestore();
    }
    expect(code).toBe(0);
    // stdout is the JSON document alone.
    const calibration = JSON.parse(out.join('')) as Calibration;
    expect(calibration.binDir).toBe(binDir);
    expect(calibration.cells.map((c) => c.id)).toEqual(['cal@1']);
    const [cell] = calibration.cells;
    expect(cell!.rounds).toBeGreaterThanOrEqual(3);
    expect(cell!.pairedCvPct).toBeGreaterThanOrEqual(0);
    expect(cell!.runCvPct).toBeGreaterThanOrEqual(0);
    // No false alarm, by construction rather than by luck: 3 rounds give a signed-rank p of at least 0.25 and
    // 3 runs an arm a Mann-Whitney p of at least 0.1, both above alpha 0.05 (never a regression or
    // improvement), and a 90% interval of at most 75% confidence (never a likely regression, which needs the
    // 90% level). How a false alarm is reported is tested in test/unit/calibrate.test.ts.
    expect(cell!.verdict).toBe('inconclusive');
    expect(cell!.falseAlarm).toBe(false);
    expect(calibration.falseAlarms).toBe(0);
    // The injected drill ran on the real server: sized from its probe, judged by the gate, recorded on the
    // A/A run. With 3 rounds the gate can never fail a cell (as above), so the drill is missed by construction.
    const record = (calibration as Calibration & { record?: CalibrationRecord }).record;
    expect(record?.aa).toEqual({ comparisons: 1, falseAlarms: 0, cells: [] });
    expect(record?.drills).toMatchObject({ comparisons: 1, caught: 0, skipped: [] });
    const [drill] = record!.drills!.cells;
    expect(drill).toMatchObject({ id: 'cal@1', injectedPct: 3, caught: false });
    expect(drill!.rows).toBeGreaterThanOrEqual(1);
  }, 180_000);
});
