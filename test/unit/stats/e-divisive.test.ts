import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { eDivisiveStatistic } from '../../../src/stats/e-divisive-statistic.js';
import {
  detectChangePoints,
  minPointsForDetection,
  type ChangePointOptions,
} from '../../../src/stats/e-divisive.js';
import { normalQuantile } from '../../../src/stats/normal-quantile.js';
import { seededRandom } from '../../../src/stats/seeded-random.js';
import { studentTTwoSample } from '../../../src/stats/student-t-two-sample.js';
import { expectClose, vectors } from './vectors.js';

/** The E-Divisive section of test/fixtures/stats/vectors.json (MongoDB signal-processing-algorithms 2.1.6). */
interface EDivisiveVector {
  tps: number[];
  T_by_tau: number[];
  argmax_tau: number;
  first_index_of_new_regime_true: number;
  e_divisive_pvalue_0_05_permutations_100_by_numpy_global_seed: Record<string, number[]>;
  split_stats: {
    mean_before: number;
    mean_after: number;
    rel_change: number;
    hunter_style_student_t_p_ddof0: number;
  };
}
const reference = (
  JSON.parse(readFileSync(new URL('../../fixtures/stats/vectors.json', import.meta.url), 'utf8')) as {
    change_point_e_divisive: EDivisiveVector;
  }
).change_point_e_divisive;
const lnTps = reference.tps.map(Math.log);

/** ln(50000) plus planted steps (at index, percent) and normal noise of the given CV, seeded. */
function synthetic(seed: number, n: number, steps: Array<[number, number]>, cv = 0.01): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, (_, i) => {
    let level = Math.log(50000);
    for (const [at, pct] of steps) if (i >= at) level += Math.log1p(pct / 100);
    return level + cv * normalQuantile(Math.min(Math.max(random(), 1e-12), 1 - 1e-12));
  });
}

const log: ChangePointOptions = { scale: 'log' };

describe('eDivisiveStatistic', () => {
  it('matches the reference T(τ) of the E-Divisive vector on ln(TPS)', () => {
    const t = eDivisiveStatistic(lnTps);
    expect(t.length).toBe(reference.T_by_tau.length);
    // The vector's T values carry 10 significant digits.
    reference.T_by_tau.forEach((expected, tau) => expectClose(t[tau]!, expected, 1e-8));
    const argmax = t.indexOf(Math.max(...t));
    expect(argmax).toBe(reference.argmax_tau);
  });

  it('computes a sub-interval as if it were the whole series', () => {
    const whole = eDivisiveStatistic(lnTps.slice(10, 30));
    const part = eDivisiveStatistic(lnTps, 10, 30);
    expect([...part]).toEqual([...whole]);
  });

  it('is largest at a clean step and rejects bad bounds', () => {
    expect([...eDivisiveStatistic([1, 1, 5, 5])]).toEqual([0, 8 / 3, 8, 8 / 3]);
    expect(() => eDivisiveStatistic([1, 2], 1, 3)).toThrow(RangeError);
  });
});

describe('studentTTwoSample', () => {
  const summary = (v: number[], ddof = 1) => {
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    const ss = v.reduce((a, b) => a + (b - mean) ** 2, 0);
    return { n: v.length, mean, sd: Math.sqrt(ss / (v.length - ddof)) };
  };
  const pooled = vectors.cases.filter((c) => typeof c.student_t_pooled.statistic === 'number');

  it.each(pooled)('$id: matches SciPy ttest_ind(equal_var=True)', (c) => {
    const ref = c.student_t_pooled as { statistic: number; df: number; p_two_sided: number };
    const r = studentTTwoSample(summary(c.base), summary(c.head));
    expectClose(-r.t, ref.statistic); // SciPy's sign is base − head
    expect(r.df).toBe(ref.df);
    expectClose(r.p, ref.p_two_sided);
  });

  it("reproduces Otava's p when given its ddof-0 standard deviations", () => {
    const before = summary(reference.tps.slice(0, 25), 0);
    const after = summary(reference.tps.slice(25), 0);
    expectClose(
      studentTTwoSample(before, after).p,
      reference.split_stats.hunter_style_student_t_p_ddof0,
      1e-6,
    );
  });

  it('gives p = 1 and an unbounded interval when there is no degree of freedom', () => {
    expect(studentTTwoSample({ n: 1, mean: 1, sd: 0 }, { n: 1, mean: 2, sd: 0 })).toMatchObject({
      p: 1,
      lower: Number.NEGATIVE_INFINITY,
    });
  });
});

describe('detectChangePoints', () => {
  it('finds the reference change point, exactly, and nothing else', () => {
    const [only, ...rest] = detectChangePoints(lnTps, log);
    expect(rest).toEqual([]);
    expect(only!.index).toBe(reference.first_index_of_new_regime_true);
    for (const found of Object.values(
      reference.e_divisive_pvalue_0_05_permutations_100_by_numpy_global_seed,
    )) {
      expect(found).toEqual([only!.index]);
    }
    expect(only!.p).toBeLessThan(1e-12);
    // Geometric means on the log scale; the relative change is about the reference's −4.05 %.
    expect(only!.relativeChange).toBeCloseTo(reference.split_stats.rel_change, 3);
    expect(only!.ci!.lower).toBeLessThan(only!.relativeChange);
    expect(only!.ci!.upper).toBeGreaterThan(only!.relativeChange);
    expect(only!.ci!.upper).toBeLessThan(0);
  });

  it('reports the arithmetic means and relative change of the reference on the linear scale', () => {
    const [only] = detectChangePoints(reference.tps);
    expect(only!.index).toBe(25);
    expectClose(only!.meanBefore, reference.split_stats.mean_before);
    expectClose(only!.meanAfter, reference.split_stats.mean_after);
    expectClose(only!.relativeChange, reference.split_stats.rel_change);
    expect(only!.ci).toBeNull();
    expect([only!.nBefore, only!.nAfter]).toEqual([25, 15]);
  });

  it.each([
    [-10, 1],
    [-5, 1],
    [5, 1],
    [10, 1],
    [-3, 3],
    [3, 3],
  ])('finds a planted %d%% step at the right index (within %d)', (pct, within) => {
    // 20 seeded series, noise CV 1%: every step of 3% or more is found near where it was planted (steps
    // of 5 standard deviations or more within one point), in the right direction, and the 95% interval
    // of its magnitude covers the planted one in about 19 of 20.
    let covered = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const found = detectChangePoints(synthetic(seed, 100, [[60, pct]]), log);
      const near = found.filter((c) => Math.abs(c.index - 60) <= within);
      expect(near, `seed ${seed}: ${JSON.stringify(found.map((c) => c.index))}`).toHaveLength(1);
      expect(Math.sign(near[0]!.relativeChange)).toBe(Math.sign(pct));
      if (near[0]!.ci!.lower < pct / 100 && pct / 100 < near[0]!.ci!.upper) covered++;
    }
    expect(covered).toBeGreaterThanOrEqual(17);
  });

  it('finds two steps in one series', () => {
    let extra = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const found = detectChangePoints(
        synthetic(seed, 200, [
          [50, -5],
          [140, 8],
        ]),
        log,
      ).map((c) => c.index);
      for (const planted of [50, 140]) {
        expect(
          found.some((i) => Math.abs(i - planted) <= 1),
          `seed ${seed}: ${found.join(',')}`,
        ).toBe(true);
      }
      extra += found.filter((i) => Math.abs(i - 50) > 1 && Math.abs(i - 140) > 1).length;
    }
    // Two of ten series get one more change point (a short run of low values right after the second step).
    expect(extra).toBeLessThanOrEqual(2);
  });

  it('finds nothing in flat series of 40 and 100 points (at most 1 in 20 series flagged)', () => {
    for (const n of [40, 100]) {
      let flagged = 0;
      for (let seed = 1; seed <= 100; seed++)
        if (detectChangePoints(synthetic(seed, n, []), log).length > 0) flagged++;
      expect(flagged, `n=${n}`).toBeLessThanOrEqual(5);
    }
    expect(detectChangePoints(Array(60).fill(Math.log(1000)), log)).toEqual([]);
  });

  it('is incremental: appending a point never moves change points found well before the end', () => {
    const full = synthetic(3, 260, [
      [70, -4],
      [150, 3],
    ]);
    const settled = (cps: { index: number }[], n: number) =>
      cps.map((c) => c.index).filter((i) => i < n - 60);
    let previous = detectChangePoints(full.slice(0, 80), log);
    for (let n = 81; n <= full.length; n++) {
      const next = detectChangePoints(full.slice(0, n), log);
      expect(settled(next, n - 1), `n=${n}`).toEqual(settled(previous, n - 1));
      previous = next;
    }
    const last = previous.map((c) => c.index);
    expect(last).toHaveLength(2);
    expect(Math.abs(last[0]! - 70)).toBeLessThanOrEqual(1);
    expect(Math.abs(last[1]! - 150)).toBeLessThanOrEqual(1);
  });

  it('filters by magnitude and respects the minimum segment', () => {
    const series = synthetic(5, 100, [[60, -3]]);
    expect(detectChangePoints(series, log).map((c) => c.index)).toEqual([59]); // within one of the planted 60
    expect(detectChangePoints(series, { ...log, minMagnitude: 0.05 })).toEqual([]);
    const late = synthetic(5, 63, [[60, -10]]);
    expect(detectChangePoints(late, log).map((c) => [c.index, c.nAfter])).toEqual([[60, 3]]);
    for (const c of detectChangePoints(late, { ...log, minSegment: 5 })) {
      expect(Math.min(c.nBefore, c.nAfter)).toBeGreaterThanOrEqual(5);
    }
  });

  it('needs 2·minSegment points and finite values; refuses bad options', () => {
    expect(minPointsForDetection(3)).toBe(6);
    expect(detectChangePoints([1, 2, 3, 4, 5])).toEqual([]);
    expect(() => detectChangePoints([1, 2, Number.NaN, 4, 5, 6, 7])).toThrow(/value 2 is NaN/);
    expect(() => detectChangePoints([1, 2], { maxP: 0 })).toThrow(/maxP/);
    expect(() => detectChangePoints([1, 2], { minSegment: 1 })).toThrow(/minSegment/);
    expect(() => detectChangePoints([1, 2], { windowLength: 5 })).toThrow(/windowLength/);
    expect(() => detectChangePoints([1, 2], { minMagnitude: -1 })).toThrow(/minMagnitude/);
  });
});
