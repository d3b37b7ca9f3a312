/**
 * A head with base's compiled code and settings is decided without a measurement: every cell "no change
 * (same compiled code)", the decision passed with a green status, the same words on the terminal and in the
 * comment; a head whose code differs (or whose settings do) is not, and the reports say what differs.
 */
import { describe, expect, it } from 'vitest';
import { analyse } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { decideRun } from '../../../src/flows/compare/pipeline/decide-run.js';
import { reportInputOf } from '../../../src/flows/compare/pipeline/report-input.js';
import { renderComparisonText } from '../../../src/core/report/terminal/comparison-text.js';
import { renderMarkdownReport } from '../../../src/core/report/markdown/markdown.js';
import { unchangedHeadsOf } from '../../../src/core/results/unchanged-heads.js';
import type { CompiledCodeComparison, RunResult } from '../../../src/core/results/result-types.js';
import { parseResults } from '../../../src/store/read-results.js';
import { document, syntheticRun } from '../../../testkit/synthetic-run.js';

const SAME: CompiledCodeComparison = {
  head: 'head',
  identical: true,
  files: 1234,
  differingFiles: [],
  differingCount: 0,
};
const DIFFERENT: CompiledCodeComparison = {
  head: 'head',
  identical: false,
  files: 1234,
  differingFiles: ['bin/postgres'],
  differingCount: 1,
  serverFunctions: { changed: ['int4in', 'ExecInitNode'], changedCount: 2, total: 23456 },
};

/** A complete run of select-only at 1 and 2 clients with no sample, as the pipeline writes it. */
function unmeasured(code: CompiledCodeComparison, headSettings: Record<string, string> = {}): RunResult {
  const result = document(['base', 'head'], { 'select-only': [1, 2] }, 0, []);
  result.arms[1]!.settingOverrides = headSettings;
  return { ...result, compiledCode: [code] };
}

describe('same compiled code', () => {
  it('passes every cell with no measurement, said as such on every surface', () => {
    const result = unmeasured(SAME);
    const comparison = analyse(result);
    const decision = decideRun(result, comparison);
    expect(decision).toMatchObject({ outcome: 'passed', exitCode: 0, verdict: 'no-change' });
    expect(decision.status.state).toBe('success');
    expect(decision.status.description).toMatch(/no change in 2 cells \(same compiled code, not measured\)/);
    expect(decision.headline.detail).toBe('same compiled code as base, same settings: nothing measured');
    expect(decision.cells.map((c) => [c.id, c.verdict, c.evidence])).toEqual([
      ['select-only@1', 'no-change', 'same compiled code'],
      ['select-only@2', 'no-change', 'same compiled code'],
    ]);
    expect(comparison.warnings).toEqual([]);

    const text = renderComparisonText(comparison, decision);
    expect(text.split('\n')[0]).toBe(
      'PASSED: No change in 2 cells: same compiled code as base, same settings: nothing measured',
    );
    expect(text).toMatch(/compiled code, head vs base: the same compiled code \(1,234 files\)/);
    expect(text).toMatch(/same compiled code, not measured/);
    const md = renderMarkdownReport({ ...reportInputOf(result, comparison, { decision }), commentId: 'x' });
    expect(md).toMatch(/same compiled code as base, same settings: nothing measured/);
  });

  it('different code is measured and judged as usual; the report names the files and functions', () => {
    const measured = syntheticRun({ seed: 3, rounds: 2, workloads: { 'select-only': [1] } });
    const result = { ...measured, compiledCode: [DIFFERENT] };
    const comparison = analyse(result);
    const decision = decideRun(result, comparison);
    expect(decision.cells[0]!.evidence).toBe('TPS, 2 rounds');
    expect(decision.outcome).not.toBe('passed'); // two rounds cannot decide
    const text = renderComparisonText(comparison, decision);
    expect(text).toContain(
      'compiled code, head vs base: 1 of 1,234 files differ (bin/postgres); in bin/postgres the code of 2 of 23,456 functions: int4in, ExecInitNode',
    );
  });

  it('the same code with other settings is not unchanged (the demo compares settings of one build)', () => {
    const result = unmeasured(SAME, { synchronous_commit: 'off' });
    expect(unchangedHeadsOf(result)).toEqual([]);
    const decision = decideRun(result, analyse(result));
    expect(decision.outcome).toBe('incomplete'); // nothing measured decides nothing
  });

  it('settings compare by content, not key order', () => {
    const result = unmeasured(SAME, { b: '2', a: '1' });
    result.arms[0]!.settingOverrides = { a: '1', b: '2' };
    expect(unchangedHeadsOf(result)).toHaveLength(1);
  });
});

describe('a same-code claim and the samples of the document agree', () => {
  const claim = (head: string, code: CompiledCodeComparison) => ({ ...code, head });

  it('a measured run of a head claimed unchanged is refused on read, naming the file and both fields', () => {
    // As an edited results file would have it: measured, with a claim that would decide every cell.
    const measured = syntheticRun({ seed: 5, rounds: 3, workloads: { 'select-only': [1] } });
    const doc = { ...measured, compiledCode: [SAME] };
    const first = doc.samples.findIndex((s) => s.arm === 'head');
    expect(() => parseResults(JSON.stringify(doc), 'edited.json')).toThrow(
      new RegExp(
        `^edited\\.json: compiledCode\\[0\\] says arm 'head' runs base's compiled code with base's settings \\(identical: true\\), so it is never measured, yet samples\\[${first}\\] is a measured run of it \\(select-only@1 arm head round 1 attempt 1, ok\\)`,
      ),
    );
    // The same samples with a claim that does not decide the cells read as they are.
    expect(
      parseResults(JSON.stringify({ ...measured, compiledCode: [DIFFERENT] }), 'x.json').samples,
    ).toHaveLength(measured.samples.length);
    const otherSettings = structuredClone(doc);
    otherSettings.arms[1]!.settingOverrides = { jit: 'off' };
    expect(() => parseResults(JSON.stringify(otherSettings), 'x.json')).not.toThrow();
  });

  it('three arms, one head unchanged: only the other is measured, and the claim decides the unchanged one', () => {
    const run = syntheticRun({
      seed: 7,
      rounds: 12,
      arms: ['base', 'same', 'slower'],
      workloads: { 'select-only': [1] },
      effect: (arm) => (arm === 'slower' ? 0.8 : 1),
    });
    // As the pipeline writes it: no sample of the unchanged head.
    const result: RunResult = {
      ...run,
      samples: run.samples.filter((s) => s.arm !== 'same'),
      compiledCode: [claim('same', SAME), claim('slower', DIFFERENT)],
    };
    const read = parseResults(JSON.stringify(result), 'mixed.json');
    expect(unchangedHeadsOf(read).map((c) => c.head)).toEqual(['same']);
    const comparison = analyse(read);
    const verdicts = Object.fromEntries(comparison.comparisons.map((c) => [c.head, c.cells[0]!.verdict]));
    expect(verdicts).toEqual({ same: 'no-change', slower: 'regression' });
    expect(decideRun(read, comparison).outcome).toBe('failed');
  });
});
