/**
 * The answer states its cost: a results document's `cost` (written by the compare pipeline) reaches
 * decision.json's value and the terminal text; the rounds are counted from the samples, seconds rounded.
 */
import { describe, expect, it } from 'vitest';
import { answerCost, costText } from '../../src/core/results/answer-cost.js';
import { analyse } from '../../src/core/compare/analysis/recorded-analysis.js';
import { decideRun } from '../../src/flows/compare/pipeline/decide-run.js';
import { renderComparisonText } from '../../src/core/report/terminal/comparison-text.js';
import { syntheticRun } from '../../testkit/synthetic-run.js';

describe('the cost of an answer', () => {
  it('counts the timed rounds from the samples and rounds the seconds', () => {
    const result = syntheticRun({ seed: 3, rounds: 4, workloads: { 'select-only': [1] } });
    const cost = answerCost(result, { buildS: 41.26, countedS: 70.04, timedS: 80.5, wallS: 192.33 });
    expect(cost).toEqual({ buildS: 41.3, countedS: 70, timedRounds: 4, timedS: 80.5, wallS: 192.3 });
    expect(costText(cost)).toBe('answered in 3m12s: build 41s, counted runs 1m10s, 4 timed rounds 1m21s');
    expect(costText({ buildS: 0, countedS: 0, timedRounds: 0, timedS: 0, wallS: 2.4 })).toBe(
      'answered in 2s: no timed rounds',
    );
  });

  it('is carried into the decision (decision.json) and said in the terminal report', () => {
    const measured = syntheticRun({ seed: 3, rounds: 4, workloads: { 'select-only': [1] } });
    const cost = answerCost(measured, { buildS: 0, countedS: 12, timedS: 50, wallS: 63 });
    const result = { ...measured, cost };
    const comparison = analyse(result);
    const decision = decideRun(result, comparison);
    expect(decision.cost).toEqual(cost);
    expect(JSON.parse(JSON.stringify(decision)).cost.wallS).toBe(63);
    expect(renderComparisonText(comparison, decision)).toContain(
      'answered in 1m03s: counted runs 12s, 4 timed rounds 50s',
    );
    // A document from before the cost was recorded says nothing of it.
    expect(decideRun(measured, analyse(measured)).cost).toBeUndefined();
  });
});
