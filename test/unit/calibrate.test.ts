import { describe, expect, it } from 'vitest';
import { compareRun } from '../../src/core/compare/compare-run.js';
import { calibrationOf, renderCalibrationText } from '../../src/flows/calibrate/calibrate.js';
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

describe('reports name the adaptive design', () => {
  it('the text and markdown design lines say the look and the spending function', async () => {
    const { planAdaptive } = await import('../../src/core/compare/adaptive.js');
    const { renderComparisonText } = await import('../../src/core/report/comparison-text.js');
    const { decide } = await import('../../src/core/compare/decision.js');
    const result = syntheticRun({ seed: 5, rounds: 10, workloads: { s: [1] }, noise: 0.02 });
    const plan = planAdaptive({ schedule: [6, 10], spending: 'pocock' });
    const c = compareRun(result, { adaptive: { plan, look: 2 } });
    expect(c.sequential?.spending).toBe('pocock');
    expect(renderComparisonText(c, decide(c))).toMatch(
      /decided at sequential look 2 of 2 \(schedule 6, 10 rounds\), per-look alpha [\d.]+, Pocock alpha-spending/,
    );
  });
});
