import { describe, expect, it } from 'vitest';
import { hodgesLehmann } from '../../../src/core/stats/hodges-lehmann.js';
import { mannWhitneyU } from '../../../src/core/stats/mann-whitney.js';
import { shiftCiIndex } from '../../../src/core/stats/shift-ci-index.js';
import { expectClose, vectors } from './vectors.js';

const pct = (logShift: number): number => 100 * Math.expm1(logShift);

describe('hodgesLehmann against the reference cases', () => {
  it.each(vectors.cases)('$id: raw shift and 95% CI', (c) => {
    const ref = c.hodges_lehmann;
    const { shift, intervals } = hodgesLehmann(c.base, c.head, [0.95]);
    const [ci] = intervals;
    expectClose(shift, ref.shift);
    expectClose(ci!.lower, ref.ci[0]);
    expectClose(ci!.upper, ref.ci[1]);
    expect(ci!.index).toBe(ref.ci_order_statistic_index_1based);
    expectClose(ci!.achievedLevel, ref.ci_achieved_confidence);
  });

  it.each(vectors.cases)('$id: log-ratio shift, 95% and 90% CIs in percent', (c) => {
    const ref = c.hodges_lehmann_log_ratio;
    const { shift, intervals } = hodgesLehmann(c.base.map(Math.log), c.head.map(Math.log), [0.95, 0.9]);
    const [ci95, ci90] = intervals;
    expectClose(shift, ref.hl_log);
    expectClose(pct(shift), ref.pct_change);
    expectClose(Math.exp(ci95!.lower), ref.ci95_ratio[0]);
    expectClose(Math.exp(ci95!.upper), ref.ci95_ratio[1]);
    expectClose(pct(ci95!.lower), ref.ci95_pct[0]);
    expectClose(pct(ci95!.upper), ref.ci95_pct[1]);
    expect(ci95!.index).toBe(ref.ci95_order_statistic_index_1based);
    expectClose(ci95!.achievedLevel, ref.ci95_achieved_confidence);
    expectClose(pct(ci90!.lower), ref.ci90_pct[0]);
    expectClose(pct(ci90!.upper), ref.ci90_pct[1]);
    expect(ci90!.index).toBe(ref.ci90_order_statistic_index_1based);
    expectClose(ci90!.achievedLevel, ref.ci90_achieved_confidence);
  });

  it('without ties, the 95% CI excludes 0 exactly when the exact p < 0.05 (where 95% is reachable)', () => {
    for (const c of vectors.cases.filter((v) => !v.mann_whitney_u.ties_present)) {
      const [ci] = hodgesLehmann(c.base, c.head, [0.95]).intervals;
      if (ci!.achievedLevel < 0.95) continue; // n3_minus3pct_tiny: only a 90% interval exists
      const excludesZero = ci!.lower > 0 || ci!.upper < 0;
      expect(excludesZero).toBe(mannWhitneyU(c.base, c.head).p < 0.05);
    }
  });
});

describe('shiftCiIndex', () => {
  it('reports the achievable level when the sample is too small for the requested one', () => {
    expect(shiftCiIndex(3, 3, 0.95)).toEqual({ index: 1, achievedLevel: 0.9 });
    expectClose(shiftCiIndex(2, 2, 0.9).achievedLevel, 2 / 3);
  });

  it('switches to the normal approximation beyond 10⁴ pairs and stays close to the exact value', () => {
    const exact = shiftCiIndex(100, 100, 0.95);
    const approx = shiftCiIndex(101, 100, 0.95);
    expect(Math.abs(approx.index - exact.index)).toBeLessThanOrEqual(60); // ~50 more pairs per side
    expect(approx.achievedLevel).toBeGreaterThanOrEqual(0.95);
    expect(approx.achievedLevel).toBeLessThan(0.951);
  });

  it('rejects nonsense levels', () => {
    expect(() => shiftCiIndex(5, 5, 1.5)).toThrow(RangeError);
  });
});
