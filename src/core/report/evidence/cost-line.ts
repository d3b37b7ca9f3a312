/**
 * What the answer cost, one line for every report (terminal, PR comment and job summary, mail): "answered
 * in 3m12s: build 41s, counted runs 1m10s, 5 timed rounds 1m20s", when the run recorded it.
 */
import { costText } from '../../results/answer-cost.js';
import type { RunComparison } from '../../compare/comparison-types.js';

export function costLines(c: Pick<RunComparison, 'cost'>): string[] {
  return c.cost ? [costText(c.cost)] : [];
}
