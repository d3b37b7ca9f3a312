import { describe, expect, it } from 'vitest';
import { oneSampleT } from '../../../src/core/stats/one-sample-t.js';
import { welchT } from '../../../src/core/stats/welch-t.js';
import { expectClose, vectors } from './vectors.js';

const finite = vectors.cases.filter((c) => typeof c.welch_t.statistic === 'number');

describe('welchT', () => {
  it.each(finite)('$id: raw scale matches SciPy ttest_ind(equal_var=False)', (c) => {
    const ref = c.welch_t;
    const r = welchT(c.base, c.head);
    expectClose(r.t, ref.statistic as number);
    expectClose(r.df, ref.df);
    expectClose(r.p, ref.p_two_sided as number);
    expectClose(r.lower, ref.ci95_mean_diff[0]);
    expectClose(r.upper, ref.ci95_mean_diff[1]);
    expectClose(r.difference, ref.mean_diff_head_minus_base);
    expectClose(r.se, ref.se_diff);
  });

  it.each(finite)('$id: log scale gives the ratio of geometric means', (c) => {
    const ref = c.welch_t_log_scale;
    const r = welchT(c.base.map(Math.log), c.head.map(Math.log));
    expectClose(r.t, ref.statistic as number);
    expectClose(r.df, ref.df);
    expectClose(r.p, ref.p_two_sided as number);
    expectClose(Math.exp(r.difference), ref.ratio_of_geometric_means);
    expectClose(Math.exp(r.lower), ref.ci95_ratio_of_geometric_means[0]);
    expectClose(Math.exp(r.upper), ref.ci95_ratio_of_geometric_means[1]);
  });

  it('never returns NaN for zero-variance arms (SciPy gives NaN or ±inf with df = 1)', () => {
    const same = welchT([1000, 1000, 1000], [1000, 1000, 1000]);
    expect(same).toMatchObject({ t: 0, p: 1, df: 4, lower: 0, upper: 0 });
    const shifted = welchT([500, 500, 500, 500], [490, 490, 490, 490]);
    expect(shifted).toMatchObject({ t: Number.NEGATIVE_INFINITY, p: 0, lower: -10, upper: -10 });
  });

  it('needs two values per arm', () => {
    expect(() => welchT([1], [1, 2])).toThrow(RangeError);
  });
});

describe('oneSampleT', () => {
  it('matches SciPy 1.17.1 ttest_1samp', () => {
    const r = oneSampleT([0.012, -0.004, 0.021, 0.008, 0.015, -0.002, 0.011]);
    expectClose(r.t, 2.5685633592528827);
    expectClose(r.p, 0.04241692020348173);
    expect(r.df).toBe(6);
    expectClose(r.lower, 0.00041272332076494785);
    expectClose(r.upper, 0.01701584810780648);
  });

  it('handles zero variance without NaN', () => {
    expect(oneSampleT([0, 0, 0])).toMatchObject({ t: 0, p: 1 });
    expect(oneSampleT([0.01, 0.01])).toMatchObject({ t: Number.POSITIVE_INFINITY, p: 0 });
  });
});
