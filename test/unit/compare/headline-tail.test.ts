/**
 * The headline's tail names the other cells with their change, as a list that reads whole (#39 item 8):
 * "; also w@4 TPS -10.0%", not "; 1 more: w@4 TPS", which read like a cut fragment.
 */
import { describe, expect, it } from 'vitest';
import { compareRun } from '../../../src/core/compare/analysis/compare-run.js';
import { decide, headlineText } from '../../../src/core/compare/decision/decision.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';

/** head 10% slower at every client count of `clients`, 12 rounds: every cell a regression. */
function headline(clients: number[]): string {
  const result = syntheticRun({
    seed: 4,
    rounds: 12,
    workloads: { w: clients },
    effect: (arm) => (arm === 'head' ? 0.9 : 1),
  });
  return headlineText(decide(compareRun(result)));
}

describe('the headline of several failing cells', () => {
  it('two cells: the second with its change, after "also"', () => {
    const text = headline([1, 4]);
    expect(text).toMatch(
      /^\d regressions: w at \d clients?, TPS -\d+\.\d\d% \[95% CI [^\]]+\]; also w@\d TPS -\d+\.\d%$/,
    );
    expect(text).not.toContain('more:');
  });

  it('six cells: three named with their change, the rest counted as cells', () => {
    const text = headline([1, 2, 4, 8, 16, 32]);
    expect(text).toMatch(/; also (w@\d+ TPS -\d+\.\d%, ){2}w@\d+ TPS -\d+\.\d% and 2 more cells$/);
  });
});
