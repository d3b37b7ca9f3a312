/**
 * The run loop's plan-time warnings (checkDesign before any round, recorded in results.json) are said after
 * the run only while they still concern it (#39 item 8): not after every cell is decided (a -99% verdict
 * needs no advice on rounds), and not beside the data's own check when that says the same kind of thing
 * in other numbers (the assumed noise's "about 30 rounds" beside the measured noise's "about 508").
 */
import { describe, expect, it } from 'vitest';
import { compareRun } from '../../../src/core/compare/analysis/compare-run.js';
import { checkDesign, planWarningKind } from '../../../src/core/compare/power.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';

/** What the run loop recorded for workload `w` before measuring: both kinds of warning. */
function planTime(rounds: number, cells: number): string[] {
  const { warnings } = checkDesign({ rounds, cells, thresholdPct: 2 });
  return warnings.map((m) => `workload w: ${m}`);
}

describe('plan-time warnings after the run', () => {
  it('knows both kinds, with or without the workload prefix, and nothing else', () => {
    const [reach, power] = planTime(3, 9);
    expect([reach, power].map((w) => planWarningKind(w!))).toEqual(['reach', 'power']);
    expect(planWarningKind(reach!.replace('workload w: ', ''))).toBe('reach');
    expect(planWarningKind('workload w: 3 failed run(s) were excluded')).toBeUndefined();
  });

  it('every cell decided (head -99%): none of them is said', () => {
    const result = syntheticRun({
      seed: 3,
      rounds: 8,
      workloads: { w: [1, 4] },
      effect: (arm) => (arm === 'head' ? 0.01 : 1),
    });
    const recorded = checkDesign({ rounds: 8, cells: 2, thresholdPct: 0.2 }).warnings.map(
      (m) => `workload w: ${m}`,
    );
    expect(recorded).toHaveLength(1);
    result.warnings = ['the server restarted once', ...recorded];
    const c = compareRun(result);
    expect(c.comparisons[0]!.cells.map((x) => x.verdict)).toEqual(['regression', 'regression']);
    expect(c.warnings).toEqual(['the server restarted once']);
  });

  it('cells undecided: the data check replaces the recorded warning of its kind, the other stays', () => {
    const result = syntheticRun({
      seed: 12,
      rounds: 3,
      noise: 0.06,
      workloads: { w: [1, 2, 4, 8, 16, 32, 64, 128, 256] },
    });
    const recorded = planTime(3, 9);
    result.warnings = recorded;
    const c = compareRun(result);
    const power = c.warnings.filter((w) => planWarningKind(w) === 'power');
    // One noise figure, the measured one; the recorded "can never reach" is kept word for word.
    expect(power).toHaveLength(1);
    expect(power[0]).toMatch(/^with \d+\.\d% run-to-run noise \(measured\)/);
    expect(c.warnings.filter((w) => planWarningKind(w) === 'reach')).toEqual([recorded[0]]);
  });
});
