import { wilcoxonRankSum } from 'simple-statistics';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/core/stats/seeded-random.js';
import { binomialCoefficient } from '../../../src/core/stats/binomial-coefficient.js';
import { mannWhitneyNormalP } from '../../../src/core/stats/mann-whitney-normal-p.js';
import { mannWhitneyNullCounts } from '../../../src/core/stats/mann-whitney-null-counts.js';
import { mannWhitneyU } from '../../../src/core/stats/mann-whitney.js';
import { midranks } from '../../../src/core/stats/midranks.js';
import { minAchievableP } from '../../../src/core/stats/min-achievable-p.js';
import { tiedRankSumNullCounts } from '../../../src/core/stats/tied-rank-sum-null-counts.js';
import { expectClose, vectors } from './vectors.js';

const tables = vectors.distribution_tables;

describe('mannWhitneyU against the reference cases', () => {
  it.each(vectors.cases)('$id: U, method and p', (c) => {
    const mwu = c.mann_whitney_u;
    const result = mannWhitneyU(c.base, c.head);
    expect(result.uBase).toBe(mwu.U_base);
    expect(result.uHead).toBe(mwu.U_head);
    expect(result.ties).toBe(mwu.ties_present);
    expectClose(result.probabilityHeadHigher, mwu.common_language_effect_size_P_head_gt_base);
    // Where SciPy's exact p is valid (no ties) it is the reference; with ties the conditional enumeration is.
    if (mwu.p_two_sided_exact_valid) {
      expect(result.method).toBe('exact');
      expectClose(result.p, mwu.p_two_sided_exact);
    } else {
      expect(result.method).toBe('exact-conditional');
      expectClose(result.p, mwu.p_two_sided_permutation_exact_conditional_on_ties!);
    }
    expect(Number.isNaN(result.p)).toBe(false);
  });

  it.each(vectors.cases)('$id: normal approximation matches SciPy asymptotic', (c) => {
    const mwu = c.mann_whitney_u;
    const { tieSizes } = midranks([...c.base, ...c.head]);
    const { z, p, sigma } = mannWhitneyNormalP(mwu.U_base, c.base.length, c.head.length, tieSizes);
    expectClose(p, mwu.p_two_sided_asymptotic_continuity);
    expectClose(sigma, mwu.sd_U_tie_corrected);
    expect((c.base.length * c.head.length) / 2).toBe(mwu.mean_U);
    const noContinuity = mannWhitneyNormalP(mwu.U_base, c.base.length, c.head.length, tieSizes, false).p;
    if (typeof mwu.p_two_sided_asymptotic_no_continuity === 'number') {
      expectClose(noContinuity, mwu.p_two_sided_asymptotic_no_continuity);
    } else {
      expect(noContinuity).toBe(1); // SciPy: 0/0 = NaN for all-equal data
    }
    expect(binomialCoefficient(c.base.length + c.head.length, c.base.length)).toBe(
      mwu.permutation_enumerated_splits,
    );
    if (typeof mwu.z_abs_with_continuity === 'number') expectClose(z, mwu.z_abs_with_continuity);
    else expect(p).toBe(1); // SciPy's z is 0/0 for all-equal data; p is 1, never NaN
    expect(tieSizes.reduce((s, t) => s + t ** 3 - t, 0)).toBe(mwu.tie_term_sum_t3_minus_t);
  });

  it('stays exact with ties beyond 10⁶ splits, below the conservative normal tail', () => {
    // n20_minus1_5pct rounded to thousands of TPS: heavy ties, C(40, 20) ≈ 1.4e11 splits.
    const c = vectors.cases.find((v) => v.id === 'n20_minus1_5pct')!;
    const base = c.base.map((v) => Math.round(v / 1000));
    const head = c.head.map((v) => Math.round(v / 1000));
    const result = mannWhitneyU(base, head);
    expect(result.method).toBe('exact-conditional');
    expect(result.uBase).toBe(380);
    // SciPy 1.17.1 asymptotic: 3.977916105088166e-7. So far in the tail the normal approximation is
    // conservative: the exact p is smaller, and above the floor 2/C(40, 20).
    expect(result.p).toBeLessThan(3.977916105088166e-7);
    expect(result.p).toBeGreaterThan(2 / binomialCoefficient(40, 20));
  });

  it('matches a seeded Monte-Carlo permutation p beyond 10⁶ splits (13 + 13 tied runs)', () => {
    const random = seededRandom(7);
    const base = Array.from({ length: 13 }, () => Math.round(10 + 3 * random()));
    const head = Array.from({ length: 13 }, () => Math.round(11 + 3 * random()));
    const exact = mannWhitneyU(base, head);
    expect(exact.method).toBe('exact-conditional');
    const pooled = [...base, ...head];
    const observed = Math.abs(exact.uBase - (13 * 13) / 2);
    const draws = 20_000;
    let extreme = 0;
    for (let i = 0; i < draws; i++) {
      for (let k = pooled.length - 1; k > 0; k--) {
        const j = Math.floor(random() * (k + 1));
        [pooled[k], pooled[j]] = [pooled[j]!, pooled[k]!];
      }
      const u = mannWhitneyU(pooled.slice(0, 13), pooled.slice(13)).uBase;
      if (Math.abs(u - (13 * 13) / 2) >= observed - 1e-9) extreme++;
    }
    const se = Math.sqrt((exact.p * (1 - exact.p)) / draws);
    expect(Math.abs(extreme / draws - exact.p)).toBeLessThan(4 * se + 1e-4);
  });

  it('falls back to the tie-corrected normal approximation beyond the cost bound', () => {
    const base = Array.from({ length: 80 }, (_, i) => i % 7);
    const head = Array.from({ length: 80 }, (_, i) => (i % 7) + (i % 3 === 0 ? 1 : 0));
    expect(mannWhitneyU(base, head).method).toBe('normal-approximation');
  });

  it('agrees with simple-statistics wilcoxonRankSum on W', () => {
    for (const c of vectors.cases) {
      const { uBase } = mannWhitneyU(c.base, c.head);
      expect(uBase + (c.base.length * (c.base.length + 1)) / 2).toBe(wilcoxonRankSum(c.base, c.head));
    }
  });

  it('rejects empty arms', () => {
    expect(() => mannWhitneyU([], [1, 2])).toThrow(RangeError);
  });
});

describe('null distributions', () => {
  it('exact counts match the tabulated n = 5/5 and 3/4 distributions', () => {
    expect(Array.from(mannWhitneyNullCounts(5, 5))).toEqual(tables.mwu_exact_null_counts_n5_n5.counts_by_U);
    expect(Array.from(mannWhitneyNullCounts(3, 4))).toEqual(tables.mwu_exact_null_counts_n3_n4.counts_by_U);
    expect(Array.from(mannWhitneyNullCounts(4, 3))).toEqual(tables.mwu_exact_null_counts_n3_n4.counts_by_U);
  });

  it('sums to C(m+n, m) and is symmetric', () => {
    for (const [m, n] of [
      [1, 1],
      [2, 7],
      [8, 8],
      [13, 21],
      [30, 30],
    ] as const) {
      const counts = Array.from(mannWhitneyNullCounts(m, n));
      expectClose(
        counts.reduce((a, b) => a + b, 0),
        binomialCoefficient(m + n, m),
        1e-14,
      );
      expect(counts).toEqual([...counts].reverse());
    }
  });

  it('conditional on no ties equals the exact distribution at even indices', () => {
    const tied = Array.from(tiedRankSumNullCounts(Array<number>(9).fill(1), 4));
    expect(tied.filter((_, u2) => u2 % 2 === 0)).toEqual(Array.from(mannWhitneyNullCounts(4, 5)));
    expect(tied.filter((_, u2) => u2 % 2 === 1).every((c) => c === 0)).toBe(true);
  });

  it('conditional on ties sums to C(N, m)', () => {
    const counts = tiedRankSumNullCounts([2, 1, 3, 1, 4, 1], 5);
    expect(Array.from(counts).reduce((a, b) => a + b, 0)).toBe(binomialCoefficient(12, 5));
  });

  it('rejects sizes beyond the exact limit', () => {
    expect(() => mannWhitneyNullCounts(101, 100)).toThrow(RangeError);
  });
});

describe('minAchievableP', () => {
  it.each(tables.min_achievable_p)('n = $n_per_arm per arm', ({ n_per_arm, min_two_sided_exact_mwu_p }) => {
    expectClose(minAchievableP(n_per_arm, n_per_arm), min_two_sided_exact_mwu_p);
  });

  it('is reached by complete separation and is 1 for empty arms', () => {
    expectClose(mannWhitneyU([1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12]).p, minAchievableP(6, 6));
    expect(minAchievableP(0, 5)).toBe(1);
    expect(minAchievableP(1, 1)).toBe(1);
  });
});
