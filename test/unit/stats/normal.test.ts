import { cumulativeStdNormalProbability } from 'simple-statistics';
import { describe, expect, it } from 'vitest';
import { normalCdf } from '../../../src/core/stats/normal-cdf.js';
import { normalQuantile } from '../../../src/core/stats/normal-quantile.js';
import { expectClose, vectors } from './vectors.js';

const { normal_two_sided_p: twoSided, normal_ppf: ppf } = vectors.distribution_tables;

describe('normalCdf', () => {
  it.each(Object.entries(twoSided))('two-sided p at |z| = %s matches SciPy', (z, p) => {
    expectClose(2 * normalCdf(-Number(z)), p);
    expectClose(2 * (1 - normalCdf(Number(z))), p, 1e-6); // the upper tail through 1 − Φ loses digits
  });

  it('resolves tails where the simple-statistics table saturates', () => {
    expect(cumulativeStdNormalProbability(-6)).toBeCloseTo(0.001, 6); // why this module exists
    expectClose(normalCdf(-6), twoSided['6.0']! / 2);
    expect(normalCdf(-40)).toBe(0);
    expect(normalCdf(40)).toBe(1);
  });

  it('is symmetric and handles non-finite input', () => {
    for (const z of [0.1, 0.6, 0.7, 3, 5.9, 7]) expect(normalCdf(z) + normalCdf(-z)).toBeCloseTo(1, 15);
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(Number.NEGATIVE_INFINITY)).toBe(0);
    expect(normalCdf(Number.POSITIVE_INFINITY)).toBe(1);
    expect(normalCdf(Number.NaN)).toBeNaN();
  });
});

describe('normalQuantile', () => {
  it.each(Object.entries(ppf))('quantile at p = %s matches SciPy', (p, z) => {
    expectClose(normalQuantile(Number(p)), z);
    expectClose(normalQuantile(1 - Number(p)), -z);
  });

  it('inverts normalCdf across the range', () => {
    for (const z of [-8, -5.5, -2, -0.3, 0.01, 1.5, 4.2]) expectClose(normalQuantile(normalCdf(z)), z, 1e-12);
  });

  it('returns infinities at 0 and 1 and NaN outside', () => {
    expect(normalQuantile(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(normalQuantile(1)).toBe(Number.POSITIVE_INFINITY);
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalQuantile(1.2)).toBeNaN();
    expect(normalQuantile(Number.NaN)).toBeNaN();
  });
});
