/**
 * The descriptive statistics pgperf takes from simple-statistics reproduce SciPy/NumPy (the audit in
 * statistics.md §3 says where the library is right), and the one it must not use is shown to differ.
 */
import {
  max,
  mean,
  median,
  medianAbsoluteDeviation,
  min,
  quantile,
  sampleStandardDeviation,
  tTestTwoSample,
} from 'simple-statistics';
import { describe, expect, it } from 'vitest';
import { welchT } from '../../../src/core/stats/welch-t.js';
import { expectClose, vectors } from './vectors.js';

describe.each(vectors.cases)('$id', (c) => {
  it('describe block: mean, median, sd, CV, raw MAD, type-7 quartiles, extremes', () => {
    for (const arm of ['base', 'head'] as const) {
      const x = c[arm];
      const ref = c.describe[arm];
      expect(x.length).toBe(ref.n);
      expectClose(mean(x), ref.mean);
      expectClose(median(x), ref.median);
      expectClose(sampleStandardDeviation(x), ref.sd_sample);
      expectClose(sampleStandardDeviation(x) / mean(x), ref.cv);
      expectClose(medianAbsoluteDeviation(x), ref.mad_raw);
      expectClose(quantile(x, 0.25), ref.q25_type7);
      expectClose(quantile(x, 0.75), ref.q75_type7);
      expect([min(x), max(x)]).toEqual([ref.min, ref.max]);
    }
  });

  it("simple-statistics' tTestTwoSample is the pooled Student t, not Welch's", () => {
    const pooled = Number(c.student_t_pooled.statistic); // 'NaN' / 'Infinity' in the JSON become numbers
    const t = tTestTwoSample(c.base, c.head)!;
    if (!Number.isFinite(pooled)) {
      // Zero variance in both arms (the two edge cases): SciPy gives NaN (no shift) or ±Infinity (a shift);
      // simple-statistics divides by the same zero and must give exactly the same value.
      expect(t).toBe(pooled);
    } else {
      expectClose(t, pooled);
      // welchT is head − base, the pooled t base − head; with equal sizes the two coincide.
      const welch = -welchT(c.base, c.head).t;
      if (c.base.length === c.head.length) expectClose(welch, pooled);
      else expect(Math.abs(welch - pooled)).toBeGreaterThan(1e-3);
    }
  });
});
