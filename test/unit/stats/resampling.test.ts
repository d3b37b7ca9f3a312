import { describe, expect, it } from 'vitest';
import { bootstrapRatioOfMeans } from '../../../src/core/stats/bootstrap-ratio-of-means.js';
import { robustLogSpread } from '../../../src/core/stats/robust-log-spread.js';
import { seededRandom } from '../../../src/core/stats/seeded-random.js';
import { expectClose, vectors } from './vectors.js';

describe('seededRandom', () => {
  it('is reproducible per seed, differs across seeds and is uniform on [0, 1)', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const first = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(first);
    expect(seededRandom(8)()).not.toBe(first[0]);
    const random = seededRandom(123);
    let sum = 0;
    const bins = new Array<number>(10).fill(0);
    for (let i = 0; i < 100_000; i++) {
      const u = random();
      expect(u >= 0 && u < 1).toBe(true);
      sum += u;
      bins[Math.floor(u * 10)]!++;
    }
    expect(sum / 100_000).toBeCloseTo(0.5, 2);
    for (const count of bins) expect(Math.abs(count - 10_000)).toBeLessThan(400); // ~4 binomial SDs
  });
});

describe('bootstrapRatioOfMeans', () => {
  // A different PRNG than NumPy's, so bounds are checked against the spread SciPy saw over 50 seeds.
  const SPREAD_SLACK = 2e-4;
  it.each(vectors.cases)('$id: point ratio exact, bounds within the Monte-Carlo spread', (c) => {
    const ref = c.bootstrap_percentile;
    const spread = ref.monte_carlo_spread_over_50_other_seeds;
    const r = bootstrapRatioOfMeans(c.base, c.head, { seed: 20240601 });
    expectClose(r.ratio, ref.point_ratio_of_means);
    expect(r.lower).toBeGreaterThanOrEqual(spread.ratio_of_means_lower[0] - SPREAD_SLACK);
    expect(r.lower).toBeLessThanOrEqual(spread.ratio_of_means_lower[1] + SPREAD_SLACK);
    expect(r.upper).toBeGreaterThanOrEqual(spread.ratio_of_means_upper[0] - SPREAD_SLACK);
    expect(r.upper).toBeLessThanOrEqual(spread.ratio_of_means_upper[1] + SPREAD_SLACK);
  });

  it('is deterministic for a seed', () => {
    const { base, head } = vectors.cases[0]!;
    expect(bootstrapRatioOfMeans(base, head, { seed: 5, resamples: 500 })).toEqual(
      bootstrapRatioOfMeans(base, head, { seed: 5, resamples: 500 }),
    );
  });
});

describe('robustLogSpread', () => {
  it('estimates the CV and ignores a single outlier', () => {
    expectClose(robustLogSpread([100, 101, 99, 100, 130]), 1.4826 * Math.log(101 / 100), 1e-12);
    expect(robustLogSpread([5])).toBe(0);
  });
});
