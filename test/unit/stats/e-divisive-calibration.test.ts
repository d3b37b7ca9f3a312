/**
 * The pieces that make E-Divisive scale-free and calibrated (issue 22): the robust standardisation, the
 * statistic at any magnitude, Owen's T, the correction for the choice of the split, and the exact
 * Mann–Whitney tail of a short segment against a long one.
 */
import { describe, expect, it } from 'vitest';
import { binomialCoefficient } from '../../../src/core/stats/binomial-coefficient.js';
import { eDivisiveStatistic } from '../../../src/core/stats/e-divisive-statistic.js';
import { mannWhitneyLowerTail } from '../../../src/core/stats/mann-whitney-lower-tail.js';
import { mannWhitneyNullCounts } from '../../../src/core/stats/mann-whitney-null-counts.js';
import { normalCdf } from '../../../src/core/stats/normal-cdf.js';
import { owensT } from '../../../src/core/stats/owens-t.js';
import { robustStandardise, unscale } from '../../../src/core/stats/robust-standardise.js';
import { seededRandom } from '../../../src/core/stats/seeded-random.js';
import { splitScanP } from '../../../src/core/stats/split-scan-p.js';
import { expectClose } from './vectors.js';

describe('robustStandardise', () => {
  it('gives the same z-scores at any magnitude and means back in the data units', () => {
    const random = seededRandom(1);
    const base = Array.from({ length: 101 }, () => 1 + random());
    const unit = robustStandardise(base)!;
    for (const magnitude of [2 ** 600, 2 ** -600, 1e200, 1e-200]) {
      const scaled = robustStandardise(base.map((v) => v * magnitude))!;
      scaled.z.forEach((z, i) => expectClose(z, unit.z[i]!, 1e-12));
      const mean = scaled.scaled.reduce((a, b) => a + b, 0) / base.length;
      expectClose(unscale(scaled, mean), (base.reduce((a, b) => a + b, 0) / base.length) * magnitude, 1e-12);
    }
    // Powers of two are exact: the z-scores are identical, bit for bit.
    expect([...robustStandardise(base.map((v) => v * 2 ** 600))!.z]).toEqual([...unit.z]);
  });

  it('uses median and 1.4826·MAD; falls back to the mean deviation; null when constant', () => {
    const s = robustStandardise([1, 2, 3, 4, 100])!;
    expect(unscale(s, s.location)).toBe(3);
    expect(unscale(s, s.scale)).toBeCloseTo(1.4826, 12);
    const mostlyEqual = robustStandardise([5, 5, 5, 5, 6])!; // MAD = 0
    expect(unscale(mostlyEqual, mostlyEqual.scale)).toBeCloseTo(Math.sqrt(Math.PI / 2) * 0.2, 12);
    expect(robustStandardise([4, 4, 4])).toBeNull();
    expect(robustStandardise([0, 0])).toBeNull();
    expect(() => robustStandardise([1, Number.NaN])).toThrow(RangeError);
  });

  it('keeps z-scores bounded and finite when one value is 1e300 times the spread of the others', () => {
    const values = Array.from({ length: 50 }, (_, i) => 1 + (i % 7) * 1e-3);
    values[10] = 1e300;
    const { z } = robustStandardise(values)!;
    expect(z.every(Number.isFinite)).toBe(true);
    expect(Math.max(...z.map(Math.abs))).toBeLessThanOrEqual(2 ** 500);
    expect(z.some((v, i) => i !== 10 && v !== 0)).toBe(true); // the others are not crushed to 0
  });
});

describe('eDivisiveStatistic at any magnitude', () => {
  const random = seededRandom(2);
  const values = Array.from({ length: 30 }, (_, i) => (i < 12 ? 1 : 2) + random());

  it('scales exactly with powers of two and stays finite near the double range', () => {
    const unit = eDivisiveStatistic(values);
    const up = eDivisiveStatistic(values.map((v) => v * 2 ** 1000));
    const down = eDivisiveStatistic(values.map((v) => v * 2 ** -1000));
    unit.forEach((t, i) => {
      expect(up[i]).toBe(t * 2 ** 1000);
      expect(down[i]).toBe(t * 2 ** -1000);
    });
    // At 1e306 the sums of the 435 pairwise distances exceed the double range (the unscaled computation
    // gave NaN everywhere); T itself, about 7e306 at its maximum, does not.
    const huge = eDivisiveStatistic(values.map((v) => v * 1e306));
    expect(huge.every(Number.isFinite)).toBe(true);
    expect(huge.indexOf(Math.max(...huge))).toBe(unit.indexOf(Math.max(...unit)));
    expect(() => eDivisiveStatistic([1, Number.POSITIVE_INFINITY])).toThrow(RangeError);
  });
});

describe('owensT', () => {
  it('matches the closed forms T(h, 1) = Φ(h)(1 − Φ(h))/2 and T(0, a) = arctan(a)/2π, and Owen’s table', () => {
    for (const h of [0.25, 0.5, 1, 2, 4, 8, 20]) {
      expectClose(owensT(h, 1), (normalCdf(h) * normalCdf(-h)) / 2, 1e-10);
    }
    for (const a of [0.1, 0.5, 1]) expectClose(owensT(0, a), Math.atan(a) / (2 * Math.PI), 1e-15);
    expectClose(owensT(1, 0.5), 0.0430646911207853, 1e-10); // Owen (1956), Table I: 0.0430647
    expect(owensT(3, 0)).toBe(0);
    expect(owensT(40, 0.3)).toBe(0); // underflows, harmlessly
    expect(() => owensT(-1, 0.5)).toThrow(RangeError);
    expect(() => owensT(1, 2)).toThrow(RangeError);
  });
});

describe('splitScanP', () => {
  it('lies between p and Bonferroni, and is p when there is only one split', () => {
    expect(splitScanP(0.003, 6, 3)).toBe(0.003);
    expect(splitScanP(0, 100, 3)).toBe(0);
    for (const length of [7, 20, 40, 365, 10_000, 100_000]) {
      for (const p of [0.3, 1e-3, 1e-6, 1e-12]) {
        const adjusted = splitScanP(p, length, 3);
        expect(adjusted).toBeGreaterThan(p);
        expect(adjusted).toBeLessThanOrEqual(Math.min(1, (length - 5) * p));
      }
    }
    expect(splitScanP(0.5, 100, 3)).toBe(1);
  });

  it('grows like the square root of the length, not like the length', () => {
    const factor = (length: number) => splitScanP(1e-6, length, 3) / 1e-6;
    expect(factor(40)).toBeGreaterThan(15); // Bonferroni: 35
    expect(factor(40)).toBeLessThan(35);
    expect(factor(100_000)).toBeLessThan(3000); // Bonferroni: 99,995
    expect(factor(100_000) / factor(1000)).toBeLessThan(15); // √100 = 10, times a log factor
    expect(splitScanP(1e-4, 40, 3)).toBeCloseTo(2.0e-3, 4);
    expect(() => splitScanP(2, 40, 3)).toThrow(RangeError);
    expect(() => splitScanP(0.1, 5, 3)).toThrow(RangeError);
  });
});

describe('mannWhitneyLowerTail', () => {
  it('matches the exact null distribution of small arms', () => {
    for (const [m, n] of [
      [3, 4],
      [5, 5],
      [3, 97],
      [10, 30],
      [25, 15],
    ] as const) {
      const counts = mannWhitneyNullCounts(m, n);
      const total = binomialCoefficient(m + n, m);
      let cumulative = 0;
      for (let u = 0; u <= m * n; u++) {
        cumulative += counts[u]!;
        expectClose(mannWhitneyLowerTail(u, m, n), Math.min(1, cumulative / total), 1e-12);
      }
    }
  });

  it('gives 1/C(N, m) for complete separation, 0 below 0 and 1 at the top', () => {
    expectClose(mannWhitneyLowerTail(0, 3, 97), 1 / binomialCoefficient(100, 3), 1e-14);
    expectClose(mannWhitneyLowerTail(0, 3, 10_000), 1 / binomialCoefficient(10_003, 3), 1e-12);
    expect(mannWhitneyLowerTail(-1, 3, 4)).toBe(0);
    expect(mannWhitneyLowerTail(12, 3, 4)).toBe(1);
    expect(() => mannWhitneyLowerTail(0.5, 3, 4)).toThrow(RangeError);
  });
});
