import { describe, expect, it } from 'vitest';
import { decideRun } from '../../../src/flows/compare/pipeline/decide-run.js';
import { decide } from '../../../src/core/compare/decision/decision.js';
import { compareRun } from '../../../src/core/compare/analysis/compare-run.js';
import { renderComparisonText } from '../../../src/core/report/terminal/comparison-text.js';
import { renderMarkdownReport } from '../../../src/core/report/markdown/markdown.js';
import { reasonPhrase } from '../../../src/core/report/reasons.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';

describe('one vocabulary of reason phrases', () => {
  it('the terminal table and the PR comment give each cell the same reason phrase', () => {
    for (const rounds of [8, 3]) {
      const result = syntheticRun({
        seed: 3,
        rounds,
        workloads: { tpcb: [1, 8, 64] },
        effect: (arm, _, clients) => (arm === 'head' && clients === 64 ? 0.9 : 1),
      });
      const c = compareRun(result);
      const text = renderComparisonText(c, decide(c)).split('\n');
      const md = renderMarkdownReport({
        result,
        comparison: c,
        decision: decideRun(result, c),
        commentId: 'x',
      }).split('\n');
      for (const cell of c.comparisons[0]!.cells) {
        const phrase = reasonPhrase(cell);
        expect(phrase).not.toBe('');
        const textRow = text.find((l) => new RegExp(`^ *${cell.clients} `).test(l))!;
        const mdRow = md.find((l) => l.startsWith(`| ${cell.clients} |`))!;
        expect(textRow.endsWith(`${cell.verdict} (${phrase})`)).toBe(true);
        expect(mdRow.endsWith(`(${phrase}) |`)).toBe(true);
      }
    }
  });

  it('names the decisive reason of a decided cell, every reason of an inconclusive one', () => {
    const message = 'm';
    const base = { thresholdPct: 3, better: 'higher' as const };
    expect(
      reasonPhrase({
        ...base,
        verdict: 'regression',
        reasons: [{ code: 'significant-beyond-threshold', message }],
      }),
    ).toBe('significant, beyond ±3%');
    expect(
      reasonPhrase({
        ...base,
        verdict: 'no-change',
        reasons: [
          { code: 'ci-inside-threshold', message },
          { code: 'significant-below-threshold', message },
        ],
      }),
    ).toBe('90% CI inside ±3%');
    expect(
      reasonPhrase({
        ...base,
        better: 'lower',
        verdict: 'inconclusive',
        reasons: [
          { code: 'likely-regression', message },
          { code: 'ci-wider-than-threshold', message },
        ],
      }),
    ).toBe('regression likely (CI beyond +3%), too few runs to certify, CI wider than ±3%');
  });
});
