import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { eDivisiveStatistic } from '../../../src/core/stats/e-divisive-statistic.js';
import {
  detectChangePoints,
  minPointsForDetection,
  STATED_FALSE_CHANGE_POINTS_PER_POINT,
  type ChangePoint,
  type ChangePointOptions,
} from '../../../src/core/stats/e-divisive.js';
import { normalQuantile } from '../../../src/core/stats/normal-quantile.js';
import { seededRandom } from '../../../src/core/stats/seeded-random.js';
import { splitScanP } from '../../../src/core/stats/split-scan-p.js';
import { studentTTwoSample } from '../../../src/core/stats/student-t-two-sample.js';
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

/** 60 values around 1 then 2 (from index 35), normal noise of 5%, seeded: a clear step. */
function unitStep(): number[] {
  const random = seededRandom(3);
  return Array.from(
    { length: 60 },
    (_, i) => (i >= 35 ? 2 : 1) + 0.05 * normalQuantile(Math.min(Math.max(random(), 1e-12), 1 - 1e-12)),
  );
}

/** Every number of every change point is finite (no NaN, no ±Infinity). */
function expectAllFinite(found: readonly ChangePoint[]): void {
  for (const c of found) {
    const numbers = Object.values({ ...c, ...c.ci }).filter((v) => typeof v === 'number');
    expect(numbers.every(Number.isFinite), JSON.stringify(c)).toBe(true);
  }
}

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

describe('detectChangePoints at any magnitude (issue 22)', () => {
  const unit = detectChangePoints(unitStep());

  it.each([1e200, 1e-200, 1e300, 1e-300, 8e307])(
    'finds the step of 1 -> 2 scaled by %d where it finds the unscaled one, with means in the data units',
    (magnitude) => {
      expect(unit.map((c) => c.index)).toEqual([35]);
      const found = detectChangePoints(unitStep().map((v) => v * magnitude));
      expect(found.map((c) => c.index)).toEqual([35]);
      const [scaled] = found;
      expectAllFinite(found);
      expectClose(scaled!.p, unit[0]!.p, 1e-9);
      expectClose(scaled!.relativeChange, unit[0]!.relativeChange, 1e-12);
      expectClose(scaled!.meanBefore, unit[0]!.meanBefore * magnitude, 1e-12);
      expectClose(scaled!.meanAfter, unit[0]!.meanAfter * magnitude, 1e-12);
      expectClose(scaled!.difference, unit[0]!.difference * magnitude, 1e-12);
    },
  );

  it('finds 1e200 -> 2e200 (which used to overflow) and a step across the whole double range', () => {
    const random = seededRandom(8);
    const values = Array.from(
      { length: 40 },
      (_, i) => (i < 20 ? 1e200 : 2e200) * (1 + 0.01 * (random() - 0.5)),
    );
    const [only, ...rest] = detectChangePoints(values);
    expect(rest).toEqual([]);
    expect(only!.index).toBe(20);
    expect(only!.meanAfter / only!.meanBefore).toBeCloseTo(2, 2);
    const wide = unitStep().map((v) => (v - 1.5) * 1.5e308 * 1.5); // about -1.1e308 then +1.1e308
    const found = detectChangePoints(wide);
    expect(found.map((c) => c.index)).toEqual([35]);
    expectAllFinite(found);
    expect(found[0]!.difference).toBe(Number.MAX_VALUE); // the true difference exceeds the double range
  });

  it('finds a planted step on the log scale of values around 1e-200 like around 50,000', () => {
    const around = (level: number) =>
      synthetic(4, 100, [[60, -5]]).map((v) => v - Math.log(50000) + Math.log(level));
    const [usual] = detectChangePoints(around(50000), log);
    const [tiny] = detectChangePoints(around(1e-200), log);
    expect(tiny!.index).toBe(usual!.index);
    expect(Math.abs(usual!.index - 60)).toBeLessThanOrEqual(1);
    expectClose(tiny!.relativeChange, usual!.relativeChange, 1e-9);
    expectClose(tiny!.meanBefore / 1e-200, usual!.meanBefore / 50000, 1e-9);
  });
});

describe('detectChangePoints on degenerate series', () => {
  it('finds nothing in a constant series, whatever its magnitude', () => {
    for (const v of [7, 0, -3e-300, 1e300]) expect(detectChangePoints(Array(50).fill(v))).toEqual([]);
  });

  it('does not call one huge outlier a change point, in noise or in a constant series', () => {
    const random = seededRandom(5);
    const noise = Array.from({ length: 100 }, () => 1000 + 10 * normalQuantile(Math.max(random(), 1e-12)));
    for (const outlier of [1e300, -1e300, 1e6]) {
      const spiked = [...noise];
      spiked[40] = outlier;
      expect(detectChangePoints(spiked), `outlier ${outlier}`).toEqual([]);
      const flat = Array<number>(100).fill(5);
      flat[40] = outlier;
      expect(detectChangePoints(flat), `flat, outlier ${outlier}`).toEqual([]);
    }
  });

  it('gives finite numbers for steps without noise and from a mean of 0', () => {
    const [clean] = detectChangePoints([1, 1, 1, 2, 2, 2]);
    expect(clean).toMatchObject({ index: 3, meanBefore: 1, meanAfter: 2, difference: 1, relativeChange: 1 });
    const fromZero = detectChangePoints([0, 0, 0, 0, 1, 1, 1, 1]);
    expectAllFinite(fromZero);
    expect(fromZero[0]).toMatchObject({ index: 4, difference: 1, relativeChange: Number.MAX_VALUE, p: 0 });
    const down = detectChangePoints([-10, -10.1, -9.9, -10, -5, -5.1, -4.9, -5]);
    expect(down[0]!.relativeChange).toBeCloseTo(0.5, 2); // up from -10 to -5: a rise, so positive
  });
});

describe('detectChangePoints false positives (issue 22)', () => {
  const points = 5000;
  const allowed = Math.floor(points * STATED_FALSE_CHANGE_POINTS_PER_POINT); // 0 for 5,000 points
  const gaussian = (random: () => number) => normalQuantile(Math.min(Math.max(random(), 1e-12), 1 - 1e-12));

  it.each([
    ['Gaussian', gaussian],
    [
      'Student-t3',
      (random: () => number) =>
        gaussian(random) /
        Math.sqrt((gaussian(random) ** 2 + gaussian(random) ** 2 + gaussian(random) ** 2) / 3),
    ],
    ['Cauchy', (random: () => number) => Math.tan(Math.PI * (random() - 0.5))],
  ] as const)('finds at most the stated number in %s noise of 5,000 points', (_, draw) => {
    for (const seed of [1, 2]) {
      const random = seededRandom(seed);
      const found = detectChangePoints(Array.from({ length: points }, () => draw(random)));
      expect(found.length, JSON.stringify(found.map((c) => c.index))).toBeLessThanOrEqual(allowed);
    }
  });

  it('keeps a change point only when its p corrected for the candidate splits is below maxP, ranks agreeing', () => {
    const [only] = detectChangePoints(lnTps, log);
    expect(only!.candidates).toBe(40 - 2 * 3 + 1);
    expect(only!.pAdjusted).toBeGreaterThan(only!.p);
    expect(only!.pAdjusted).toBeLessThanOrEqual(only!.candidates * only!.p);
    expect(only!.pRankAdjusted).toBeLessThan(0.01);
    // Pure noise whose best split (28 | 12) has p = 1.9e-4: "significant" alone, not as the best of 35.
    const random = seededRandom(671);
    const noise = Array.from({ length: 40 }, () => gaussian(random));
    const summary = (v: number[]) => {
      const mean = v.reduce((a, b) => a + b, 0) / v.length;
      return {
        n: v.length,
        mean,
        sd: Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / (v.length - 1)),
      };
    };
    const best = studentTTwoSample(summary(noise.slice(0, 28)), summary(noise.slice(28))).p;
    expect(best).toBeLessThan(0.001);
    expect(splitScanP(best, 40, 3)).toBeGreaterThan(0.001);
    expect(detectChangePoints(noise)).toEqual([]);
  });
});
