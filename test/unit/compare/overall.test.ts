import { describe, expect, it } from 'vitest';
import { overallVerdict } from '../../../src/core/compare/overall.js';
import type { OverallVerdict } from '../../../src/core/compare/comparison-types.js';

const of = (...verdicts: OverallVerdict[]) =>
  overallVerdict(verdicts.map((verdict, i) => ({ id: `c${i}`, verdict })));

describe('overallVerdict', () => {
  it('regression outranks everything and lists the regressed cells', () => {
    expect(of('no-change', 'regression', 'inconclusive', 'regression')).toEqual({
      verdict: 'regression',
      deciding: ['c1', 'c3'],
    });
  });

  it('is mixed when regressions and improvements meet', () => {
    expect(of('improvement', 'no-change', 'regression')).toEqual({
      verdict: 'mixed',
      deciding: ['c0', 'c2'],
    });
    expect(of('mixed', 'no-change').verdict).toBe('mixed');
  });

  it('is an improvement with at least one improvement and no regression', () => {
    expect(of('improvement', 'inconclusive', 'no-change')).toEqual({
      verdict: 'improvement',
      deciding: ['c0'],
    });
  });

  it('is no-change only when every cell shows no change', () => {
    expect(of('no-change', 'no-change')).toEqual({ verdict: 'no-change', deciding: ['c0', 'c1'] });
    expect(of('no-change', 'inconclusive')).toEqual({ verdict: 'inconclusive', deciding: ['c1'] });
    expect(of()).toEqual({ verdict: 'inconclusive', deciding: [] });
  });
});
