/**
 * Seeded simulations of the whole procedure (compareRun on synthetic documents): it must neither cry wolf
 * nor wave regressions through. "False significance" is any cell with p_adj < α (the error rate Holm and
 * Pocock control); a false alarm is an overall verdict of regression, improvement or mixed, which also needs
 * |Δ| ≥ δ and is therefore rarer.
 */
import { describe, expect, it } from 'vitest';
import { compareRun } from '../../../src/core/compare/analysis/compare-run.js';
import type { RunComparison } from '../../../src/core/compare/comparison-types.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';

const alarmed = (c: RunComparison) => c.verdict !== 'no-change' && c.verdict !== 'inconclusive';
const significant = (c: RunComparison) =>
  c.comparisons.some((arm) => arm.cells.some((x) => x.pAdjusted !== null && x.pAdjusted < c.testAlpha));

/** Three binomial standard errors of a 5% rate over 1000 replicates. */
const MC_SLACK = 3 * Math.sqrt((0.05 * 0.95) / 1000);

describe('simulation over 8 cells', () => {
  it('keeps the A/A false-alarm rate at or below alpha (10 rounds)', () => {
    const replications = 1000;
    let falseSignificance = 0;
    let falseAlarms = 0;
    for (let seed = 1; seed <= replications; seed++) {
      // 2% noise, as large as δ, so that spurious |Δ| ≥ δ occur and the verdict's own rate is tested too.
      const c = compareRun(syntheticRun({ seed, rounds: 10, noise: 0.02 }));
      if (significant(c)) falseSignificance++;
      if (alarmed(c)) falseAlarms++;
    }
    // statistics.md §2.5 simulated 0.034–0.039 for Holm over 8 independent cells: calibrated, not vacuous.
    // Within Monte Carlo error: 3 standard errors of a 5% rate over 1000 replicates is 0.021.
    expect(falseSignificance / replications).toBeLessThanOrEqual(0.05 + MC_SLACK);
    expect(falseSignificance / replications).toBeGreaterThan(0.02);
    expect(falseAlarms / replications).toBeLessThanOrEqual(0.05);
  });

  it('detects a 5% drop at 1% noise with 10 rounds', () => {
    const replications = 200;
    let detected = 0;
    let cellsDetected = 0;
    for (let seed = 1; seed <= replications; seed++) {
      const c = compareRun(
        syntheticRun({ seed, rounds: 10, noise: 0.01, effect: (arm) => (arm === 'head' ? 0.95 : 1) }),
      );
      if (c.verdict === 'regression') detected++;
      cellsDetected += c.comparisons[0]!.cells.filter((x) => x.verdict === 'regression').length;
    }
    expect(detected).toBe(replications);
    expect(cellsDetected / (8 * replications)).toBeGreaterThan(0.98);
  });

  it('keeps the sequential false-alarm rate at alpha with Pocock-type alpha spending over looks at 6, 12, 18 rounds, unlike naive looks', () => {
    const replications = 200;
    const schedule = [6, 12, 18];
    let pocock = 0;
    let naive = 0;
    for (let seed = 1; seed <= replications; seed++) {
      const full = syntheticRun({ seed: 10_000 + seed, rounds: 18, noise: 0.02 });
      const looks = schedule.map((rounds) => ({
        ...full,
        samples: full.samples.filter((s) => s.round <= rounds),
      }));
      if (looks.some((doc, i) => significant(compareRun(doc, { sequential: { schedule, look: i + 1 } }))))
        pocock++;
      if (looks.some((doc) => significant(compareRun(doc)))) naive++;
    }
    // statistics.md §2.6: 0.043 with Pocock's α' = 0.022, 0.098 when every look tests at 0.05.
    // Within Monte Carlo error (3 standard errors of 5% over 200 replicates: 0.046).
    expect(pocock / replications).toBeLessThanOrEqual(0.05 + 3 * Math.sqrt((0.05 * 0.95) / replications));
    expect(naive / replications).toBeGreaterThan(0.06);
  });
});
