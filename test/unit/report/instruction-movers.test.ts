/**
 * Where the instructions went, on every surface (#39 item 3): a run that counts instructions names the
 * largest movers of each cell that changed on them in the terminal, the PR comment and the mail, whether the
 * counts join the timed cells (`--instructions`, a workload's `instructions`) or decide alone (`--metric
 * instructions`, no timed rounds: the counts are the run's cells, which the comment's table once missed).
 */
import { describe, expect, it } from 'vitest';
import { renderComparisonText } from '../../../src/core/report/terminal/comparison-text.js';
import { renderMarkdownReport } from '../../../src/core/report/markdown/markdown.js';
import { renderMailReport } from '../../../src/core/report/mail/plain-text-mail.js';
import type { RunResult } from '../../../src/core/results/result-types.js';
import { analyse } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { reportInputOf } from '../../../src/flows/compare/pipeline/report-input.js';
import { instructionRecord } from '../../../testkit/instruction-record.js';
import { document, syntheticRun } from '../../../testkit/synthetic-run.js';

/** The terminal report of a comparison with the run's instruction counts (the movers' source). */
function terminalText(
  comparison: Parameters<typeof renderComparisonText>[0],
  decision: Parameters<typeof renderComparisonText>[1],
  result: Pick<RunResult, 'instructions'>,
): string {
  return renderComparisonText(comparison, decision, undefined, [], [], undefined, result.instructions);
}

/** Head runs 2.4% more instructions per transaction, most of them in standard_ExecutorRun. */
function countedRun(mode: '--instructions' | '--metric instructions'): RunResult {
  const timed =
    mode === '--instructions'
      ? syntheticRun({ seed: 7, rounds: 12, workloads: { 'select-only': [1] }, noise: 0.001 })
      : document(['base', 'head'], { 'select-only': [1] }, 0, []);
  const instructions = instructionRecord({ seed: 1, effect: 0.03, cv: 0.004 });
  instructions.profiles[0]!.movers[0] = {
    fn: 'standard_ExecutorRun',
    file: 'execMain.c',
    baseIrPerTx: 1000,
    headIrPerTx: 19_005,
    deltaIrPerTx: 18_005,
  };
  return {
    ...timed,
    instructions,
    analysis: {
      alpha: 0.05,
      thresholdPct: 2,
      metric: mode === '--instructions' ? 'tps' : 'instructions',
    },
  };
}

const TOP = 'standard_ExecutorRun 1,000 -> 19,005 (+18,005 instr/tx)';

describe.each(['--instructions', '--metric instructions'] as const)('a run with %s', (mode) => {
  const result = countedRun(mode);
  const comparison = analyse(result);
  const input = reportInputOf(result, comparison);

  it('is decided by the instruction counts: a regression of select-only at 1 client', () => {
    expect(input.decision.outcome).toBe('failed');
    expect(input.decision.cells.find((c) => c.failsGate)).toMatchObject({
      id: 'select-only@1',
      metric: 'instructions',
    });
  });

  it('names the top mover in the terminal, with the profile file', () => {
    const text = terminalText(comparison, input.decision, result);
    const lines = text.split('\n');
    const at = lines.indexOf(
      'largest instruction movers per changed cell (self instructions per transaction, base -> head):',
    );
    expect(at, text).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 4)).toEqual([
      '  select-only@1 (full profile: instructions/select-only.head-vs-base.tsv):',
      `    ${TOP}`,
      '    fn2 100 -> 150 (+50 instr/tx)',
    ]);
  });

  it("fills the comment's instruction table and lists the movers", () => {
    const md = renderMarkdownReport({ ...input, commentId: 'x' });
    const section = md.slice(md.indexOf('CPU instructions per transaction</summary>'));
    expect(section).toMatch(
      /^\| select-only&#64;1 \| 44,\d{3} \| 45,\d{3} \| \+2\.\d\d% \| .* \| regression \|$/m,
    );
    expect(section).toContain('| `standard_ExecutorRun` | 1,000 | 19,005 | +18,005 |');
  });

  it('names the top mover in the mail, within 72 columns, after the per-transaction costs', () => {
    const mail = renderMailReport(input);
    const lines = mail.split('\n');
    const at = lines.indexOf('Largest instruction movers per changed cell (self instructions per');
    expect(at, mail).toBeGreaterThan(0);
    expect(lines.slice(at, at + 4)).toEqual([
      'Largest instruction movers per changed cell (self instructions per',
      'transaction, base -> head):',
      'select-only@1 (full profile: instructions/select-only.head-vs-base.tsv):',
      `- ${TOP}`,
    ]);
    expect(mail).toMatch(/^- select-only@1: instr\/tx 44,\d{3} -> 45,\d{3} \(\+2\.\d\d%\)$/m);
    expect(mail.split('\n').filter((l) => l.length > 72)).toEqual([]);
  });
});

it('a cell without change lists no movers anywhere', () => {
  const result = countedRun('--metric instructions');
  result.instructions = instructionRecord({ seed: 2, effect: 0, cv: 0.004 });
  const comparison = analyse(result);
  const input = reportInputOf(result, comparison);
  const text = terminalText(comparison, input.decision, result);
  expect(text).not.toContain('movers');
  expect(renderMailReport(input)).not.toContain('movers');
  expect(renderMarkdownReport({ ...input, commentId: 'x' })).not.toContain('largest movers');
});
