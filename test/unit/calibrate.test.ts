import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareRun } from '../../src/core/compare/analysis/compare-run.js';
import {
  calibrationDecision,
  calibrationOf,
  falseAlarmWarning,
} from '../../src/flows/calibrate/calibrate.js';
import { renderCalibrationMarkdown } from '../../src/core/report/markdown/calibration-markdown.js';
import { renderCalibrationText } from '../../src/core/report/terminal/calibration-text.js';
import { CALIBRATION_FILE, runCalibration } from '../../src/flows/calibrate/calibrate-job.js';
import type { PipelineRequest } from '../../src/flows/compare/pipeline/pipeline.js';
import { syntheticRun, type SyntheticRunOptions } from '../../testkit/synthetic-run.js';

/** A calibration of two arms a and b over the cells s@1 and s@8, as the engine compares them. */
function calibrate(options: Omit<SyntheticRunOptions, 'arms' | 'workloads'>) {
  const result = syntheticRun({ arms: ['a', 'b'], workloads: { s: [1, 8] }, ...options });
  return calibrationOf(result, compareRun(result));
}

describe('A/A calibration', () => {
  it("reports each cell's noise near the planted noise and no false alarm between identical arms", () => {
    const c = calibrate({ seed: 3, rounds: 40, noise: 0.05 });
    expect(c.cells.map((x) => x.id)).toEqual(['s@1', 's@8']);
    for (const cell of c.cells) {
      expect(cell.rounds).toBe(40);
      // ln(b/a) of two independent 5% noises: about 7% (√2 × 5), robustly estimated from 40 rounds.
      expect(cell.pairedCvPct!).toBeGreaterThan(4);
      expect(cell.pairedCvPct!).toBeLessThan(11);
      expect(cell.runCvPct!).toBeGreaterThan(2.5);
      expect(cell.runCvPct!).toBeLessThan(9);
    }
    expect(c.falseAlarms).toBe(c.cells.filter((x) => x.falseAlarm).length);
    expect(renderCalibrationText(c).split('\n')[0]).toMatch(/^calibration: (no false alarm|FALSE ALARM)/);
  });

  it('flags a cell the engine called changed although the arms are the same install', () => {
    // What a broken runner looks like: arm b 20% slower in one cell.
    const c = calibrate({
      seed: 4,
      rounds: 12,
      noise: 0.02,
      effect: (arm, _w, clients) => (arm === 'b' && clients === 8 ? 0.8 : 1),
    });
    expect(c.cells.find((x) => x.id === 's@8')).toMatchObject({ verdict: 'regression', falseAlarm: true });
    expect(c.falseAlarms).toBeGreaterThanOrEqual(1);
    expect(renderCalibrationText(c)).toMatch(/^calibration: FALSE ALARM in \d of 2 cell\(s\)/);
    expect(renderCalibrationText(c)).toMatch(/s@8 .*regression \(FALSE ALARM\)/);
  });
});

describe('the calibration job', () => {
  it('measures the install as both arms in random order, writes calibration.json when asked, and decides', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pgperf-calibrate-job-'));
    try {
      const result = syntheticRun({ arms: ['a', 'b'], workloads: { s: [1, 8] }, seed: 3, rounds: 12 });
      const requests: Array<Omit<PipelineRequest, 'runDir'>> = [];
      const { run, calibration, calibrationFile, decision } = await runCalibration(
        {
          binDir: '/opt/pg/bin',
          workloads: [],
          analysis: { alpha: 0.01 },
          rounds: 12,
          planCheck: 'refuse',
          failOn: 'regression',
          calibrationDir: dir,
        },
        {
          measure: async (request) => {
            requests.push(request);
            return { result, comparison: compareRun(result), resultsFile: path.join(dir, 'results.json') };
          },
        },
      );
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({
        arms: {
          kind: 'installed',
          arms: [
            { label: 'a', binDir: '/opt/pg/bin', settings: {} },
            { label: 'b', binDir: '/opt/pg/bin', settings: {} },
          ],
        },
        rounds: 12,
        planCheck: 'refuse',
        order: 'random',
        dataChecksums: false,
        analysis: { alpha: 0.01, thresholdPct: expect.any(Number) },
      });
      expect(requests[0]).not.toHaveProperty('seed');
      expect(calibration).toEqual(calibrationOf(result, run.comparison));
      expect(calibrationFile).toBe(path.join(dir, CALIBRATION_FILE));
      expect(JSON.parse(await readFile(calibrationFile!, 'utf8'))).toEqual(calibration);
      expect(decision).toEqual(calibrationDecision(result, calibration, 'regression'));
      expect(renderCalibrationMarkdown(calibration)).toBe(
        `## pgperf calibrate\n\n\`\`\`\n${renderCalibrationText(calibration)}\`\`\`\n`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('warns of a false alarm, and of nothing without one', () => {
    const quiet = calibrate({ seed: 3, rounds: 12, noise: 0.001 });
    expect(falseAlarmWarning({ ...quiet, falseAlarms: 0 })).toBeUndefined();
    expect(falseAlarmWarning({ ...quiet, falseAlarms: 2 })).toBe(
      `2 cell(s) of the same install were called changed: at most alpha ${quiet.alpha} of calibrations should; if it recurs the runner is not steady enough (pgperf doctor)`,
    );
  });
});

describe('reports name the adaptive design', () => {
  it('the text and markdown design lines say the look and the spending function', async () => {
    const { designSequential } = await import('../../src/core/compare/analysis/adaptive.js');
    const { renderComparisonText } = await import('../../src/core/report/terminal/comparison-text.js');
    const { decide } = await import('../../src/core/compare/decision/decision.js');
    const result = syntheticRun({ seed: 5, rounds: 10, workloads: { s: [1] }, noise: 0.02 });
    const plan = designSequential({ schedule: [6, 10], spending: 'pocock' });
    const c = compareRun(result, { adaptive: { plan, look: 2 } });
    expect(c.sequential?.spending).toBe('pocock');
    expect(renderComparisonText(c, decide(c))).toMatch(
      /decided at sequential look 2 of 2 \(schedule 6, 10 rounds\), per-look alpha [\d.]+, Pocock alpha-spending/,
    );
  });
});
