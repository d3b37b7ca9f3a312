import { describe, expect, it } from 'vitest';
import { signedRankNullCounts } from '../../../src/core/stats/signed-rank-null-counts.js';
import { signedRankCiIndex, walshHodgesLehmann } from '../../../src/core/stats/walsh-hodges-lehmann.js';
import { signedRankMinP, wilcoxonSignedRank } from '../../../src/core/stats/wilcoxon-signed-rank.js';

describe('wilcoxonSignedRank', () => {
  it('matches SciPy wilcoxon(method="exact") without ties', () => {
    // scipy.stats.wilcoxon(d, method='exact').pvalue, SciPy 1.17.1
    expect(wilcoxonSignedRank([-0.1, -0.2, -0.3, -0.4, -0.5, -0.6]).p).toBeCloseTo(0.03125, 12);
    const d = [0.3, -1.2, 0.5, -2.2, -0.1, -0.7, 1.9, -3.1, -0.4, -2.6];
    expect(wilcoxonSignedRank(d)).toMatchObject({ method: 'exact', tPlus: 13, n: 10, ties: false });
    expect(wilcoxonSignedRank(d).p).toBeCloseTo(0.16015625, 12);
  });

  it('is exact conditional on ties and drops zeros', () => {
    // All five log-ratios equal (head = 0.9 × base every round): every sign pattern of 5 tied ranks.
    const r = wilcoxonSignedRank([-0.1, -0.1, -0.1, -0.1, -0.1, 0]);
    expect(r).toMatchObject({ n: 5, zeros: 1, ties: true, method: 'exact-conditional' });
    expect(r.p).toBeCloseTo(2 / 32, 12);
    expect(wilcoxonSignedRank([0, 0]).p).toBe(1);
  });

  it('has the floor 2/2ⁿ', () => {
    expect(signedRankMinP(5)).toBe(0.0625);
    expect(signedRankMinP(9)).toBe(0.00390625);
    expect(signedRankMinP(0)).toBe(1);
  });

  it('tabulates the null distribution (sums to 2ⁿ, symmetric)', () => {
    const counts = signedRankNullCounts([2, 4, 6, 8, 10, 12, 14, 16]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(256);
    for (let s = 0; s < counts.length; s++) expect(counts[s]).toBe(counts[counts.length - 1 - s]);
  });
});

describe('walshHodgesLehmann', () => {
  it('estimates the centre by the median of Walsh averages', () => {
    expect(walshHodgesLehmann([1, 2, 3], [0.5]).shift).toBe(2);
    expect(walshHodgesLehmann([-1, 0, 5], [0.5]).shift).toBe(1); // averages -1, -0.5, 2, 0, 2.5, 5
  });

  it('follows R’s wilcox.test(conf.int = TRUE) order statistics and achieved levels', () => {
    expect(signedRankCiIndex(5, 0.9)).toEqual({ index: 1, achievedLevel: 0.9375 });
    // n = 10, 95%: qsignrank(0.025, 10) = 9 → achieved 1 − 2·psignrank(8, 10) = 1 − 2·25/1024
    expect(signedRankCiIndex(10, 0.95)).toEqual({ index: 9, achievedLevel: 1 - (2 * 25) / 1024 });
  });

  it('is the dual of the exact test: the interval excludes 0 iff p < 1 − level', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const d = Array.from({ length: 8 + (seed % 5) }, (_, i) => Math.sin(seed * 7.1 + i * 3.3) - 0.3);
      const { p } = wilcoxonSignedRank(d);
      const [ci] = walshHodgesLehmann(d, [0.9]).intervals;
      const excludes = ci!.lower > 0 || ci!.upper < 0;
      expect(excludes).toBe(p < 1 - ci!.achievedLevel + 1e-12);
    }
  });
});
