/**
 * mode calibrate through the built action: the installed PostgreSQL measured as both arms (A/A); the
 * calibration (noise per cell, false alarms) in the job summary, calibration.json and the outputs; the run
 * saved to the store; bad inputs named before anything is measured. No GitHub request is made.
 */
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Calibration } from '../../src/core/compare/calibration-types.js';
import { DirStore } from '../../src/store/dir/dir-store.js';
import { scheduleEvent, SHORT_RUN_INPUTS } from '../helpers/action-events.js';
import { runBuiltAction } from '../helpers/action-run.js';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';

const root = new URL('../../', import.meta.url).pathname;
let tmp: string;
let gh: FakeGitHub;

function calibrate(inputs: Record<string, string>) {
  return runBuiltAction(
    {
      mode: 'calibrate',
      'head-bin-dir': installedBinDir(),
      workloads: path.join(root, 'workloads/smoke.yml'),
      // 3 rounds: a false alarm is impossible by construction, whatever this machine's noise. 3 pairs give a
      // signed-rank p of at least 0.25 and 3 runs an arm a Mann-Whitney p of at least 0.1, both above alpha
      // (never a regression or improvement); the 90% interval reaches at most 75% confidence (never a likely
      // regression, which needs the 90% level). Every A/A cell is inconclusive; force (SHORT_RUN_INPUTS) lets
      // such a plan run. The FALSE ALARM line itself is tested in test/unit/calibrate.test.ts.
      rounds: '3',
      ...SHORT_RUN_INPUTS,
      ...inputs,
    },
    {
      workspace: tmp,
      apiUrl: gh.url,
      event: scheduleEvent('5 3 * * 0'),
      eventName: 'schedule',
      sha: 'c'.repeat(40),
    },
  );
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-e2e-calibrate-'));
  await chmod(tmp, 0o755);
  gh = await startFakeGitHub();
});
afterAll(async () => {
  await gh?.close();
  expect(processesMentioning(tmp)).toEqual([]);
  await rm(tmp, { recursive: true, force: true });
});

describe('mode calibrate', () => {
  it('measures the install as both arms, reports noise per cell and false alarms, and stores the run', async () => {
    const ran = await calibrate({ store: 'calibrations' });
    expect(ran.code).toBe(0);
    expect(ran.summary).toMatch(/^## pgperf calibrate\n\n```\ncalibration: no false alarm in 2 cell\(s\)/);
    const calibration = JSON.parse(await readFile(ran.outputs['calibration-json']!, 'utf8')) as Calibration;
    expect(calibration.cells.map((c) => c.id)).toEqual(['smoke@1', 'smoke@2']);
    for (const cell of calibration.cells) {
      expect(cell.rounds).toBe(3);
      expect(cell.verdict).toBe('inconclusive');
      expect(cell.pairedCvPct).toBeGreaterThan(0);
    }
    expect(calibration.falseAlarms).toBe(0);
    expect(ran.outputs['false-alarms']).toBe('0');
    const store = await DirStore.open(path.join(tmp, 'calibrations'), { warn: () => {} });
    try {
      const runs = await store.list();
      expect(runs).toHaveLength(1);
      const stored = await store.load(runs[0]!.id);
      expect(stored.arms.map((a) => [a.label, a.binDir])).toEqual([
        ['a', installedBinDir()],
        ['b', installedBinDir()],
      ]);
      // Recorded as a calibration, so plans and runs on this runner find its noise (runner-noise.ts).
      expect(stored.calibration).toBe(true);
    } finally {
      await store.close();
    }
    expect(gh.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it.each([
    [
      { 'head-bin-dir': '' },
      "::error::mode calibrate measures one installed PostgreSQL as both arms: set 'head-bin-dir'",
    ],
    [
      { 'base-bin-dir': '/usr/bin' },
      "::error::mode calibrate measures 'head-bin-dir' as both arms: drop 'base-bin-dir'",
    ],
  ])('bad input %j is named before anything is measured', async (inputs, message) => {
    const ran = await calibrate(inputs);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain(message);
    expect(ran.stdout).not.toMatch(/initdb/);
  });
});
