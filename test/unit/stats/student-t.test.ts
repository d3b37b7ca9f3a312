import { describe, expect, it } from 'vitest';
import { logBeta } from '../../../src/core/stats/log-beta.js';
import { regularizedIncompleteBeta } from '../../../src/core/stats/regularized-incomplete-beta.js';
import { studentTCdf } from '../../../src/core/stats/student-t-cdf.js';
import { studentTQuantile } from '../../../src/core/stats/student-t-quantile.js';
import { expectClose, vectors } from './vectors.js';

const table = vectors.distribution_tables.student_t;

describe('studentTCdf', () => {
  const rows = table.flatMap((row) =>
    Object.entries(row.p_two_sided_at_t).map(([t, p]) => ({ df: row.df, t: Number(t), p })),
  );
  it.each(rows)('two-sided p at t = $t, df = $df matches SciPy', ({ df, t, p }) => {
    expectClose(2 * studentTCdf(-t, df), p);
    expectClose(studentTCdf(t, df) - studentTCdf(-t, df), 1 - p);
  });

  it('handles infinite t and invalid df', () => {
    expect(studentTCdf(Number.POSITIVE_INFINITY, 3)).toBe(1);
    expect(studentTCdf(Number.NEGATIVE_INFINITY, 3)).toBe(0);
    expect(studentTCdf(0, 7.3)).toBe(0.5);
    expect(studentTCdf(1, 0)).toBeNaN();
  });
});

describe('studentTQuantile', () => {
  it.each(table)('0.975 and 0.995 quantiles at df = $df match SciPy', ({ df, t_ppf_0975, t_ppf_0995 }) => {
    expectClose(studentTQuantile(0.975, df), t_ppf_0975);
    expectClose(studentTQuantile(0.995, df), t_ppf_0995);
    expectClose(studentTQuantile(0.025, df), -t_ppf_0975);
  });

  it('inverts the distribution function, including far tails and fractional df', () => {
    for (const df of [0.7, 2.5, 9.81, 58.3, 400]) {
      for (const p of [1e-10, 0.001, 0.3, 0.9, 0.999999])
        expectClose(studentTCdf(studentTQuantile(p, df), df), p, 1e-11);
    }
    expect(studentTQuantile(0.5, 4)).toBe(0);
    expect(studentTQuantile(1, 4)).toBe(Number.POSITIVE_INFINITY);
    expect(studentTQuantile(-0.1, 4)).toBeNaN();
  });
});

describe('regularizedIncompleteBeta and logBeta', () => {
  it('match closed forms', () => {
    expectClose(regularizedIncompleteBeta(0.5, 2, 3), 0.6875, 1e-14); // 1 − Σ binomial terms
    expectClose(regularizedIncompleteBeta(0.3, 1, 4), 1 - 0.7 ** 4, 1e-14);
    expect(regularizedIncompleteBeta(0, 2, 3)).toBe(0);
    expect(regularizedIncompleteBeta(1, 2, 3)).toBe(1);
    expectClose(logBeta(0.5, 0.5), Math.log(Math.PI), 1e-14);
    expectClose(logBeta(1, 1e6), -Math.log(1e6), 1e-14);
    // B(12, 15) = 11!·14!/26!, exact in BigInt.
    const fact = (n: number): bigint => (n <= 1 ? 1n : BigInt(n) * fact(n - 1));
    const exact = Number((fact(11) * fact(14) * 10n ** 30n) / fact(26)) / 1e30;
    expectClose(logBeta(12, 15), Math.log(exact), 1e-13);
    expectClose(logBeta(15, 12), logBeta(12, 15), 1e-15);
  });
});
