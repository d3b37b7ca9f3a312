/**
 * Which threshold applies, said where the analysis is described (#39 item 8): `pgperf compare --threshold 3`
 * wins over a workload's recorded `threshold: 10` (it used to lose silently) and the header names what it set
 * aside; the instruction counts' own threshold (1% by default) is named beside the default one.
 */
import { describe, expect, it } from 'vitest';
import { analyse } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { analysisLines, thresholdText } from '../../../src/core/report/terminal/comparison-text.js';
import { renderMarkdownReport } from '../../../src/core/report/markdown/markdown.js';
import type { RunResult } from '../../../src/core/results/result-types.js';
import { reportInputOf } from '../../../src/flows/compare/pipeline/report-input.js';
import { instructionRecord } from '../../../testkit/instruction-record.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';

/** head 5% slower in every cell over 12 rounds; the workload's own threshold 10%. */
function slowerBy5(): RunResult {
  const result = syntheticRun({
    seed: 8,
    rounds: 12,
    workloads: { w: [1, 4] },
    effect: (arm) => (arm === 'head' ? 0.95 : 1),
  });
  result.workloads.w = { ...result.workloads.w!, threshold: 10 };
  result.analysis = { alpha: 0.05, thresholdPct: 2, metric: 'tps' };
  return result;
}

describe('the threshold that applies', () => {
  it("the workload's own threshold, without --threshold: its 10% hides a 5% loss", () => {
    const c = analyse(slowerBy5());
    expect(c.verdict).not.toBe('regression');
    expect(thresholdText(c)).toBe('default threshold 2%');
  });

  it("--threshold 3 wins over the workload's 10%, and the header says what it set aside", () => {
    const result = slowerBy5();
    const c = analyse(result, { thresholdPct: 3 });
    expect(c.verdict).toBe('regression');
    expect(c.comparisons[0]!.cells.every((cell) => cell.thresholdPct === 3)).toBe(true);
    const decision = reportInputOf(result, c).decision;
    expect(analysisLines(c, decision)[0]).toBe(
      "alpha 0.05, Holm over 2 cell(s) per arm, threshold 3% for every workload (asked for this analysis; set aside: w's own 10%), fail-on regression",
    );
    expect(renderMarkdownReport({ ...reportInputOf(result, c), commentId: 'default' })).toContain(
      "threshold 3% for every workload (asked for this analysis; set aside: w's own 10%)",
    );
  });

  it('names the instruction counts\u2019 own threshold beside the default one', () => {
    const result = slowerBy5();
    result.instructions = instructionRecord({ workload: 'w', seed: 5, effect: 0.15, cv: 0.0005 });
    expect(thresholdText(analyse(result))).toBe('default threshold 2%, instr/tx 1%');
  });
});
