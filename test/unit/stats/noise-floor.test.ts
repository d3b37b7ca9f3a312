import { describe, expect, it } from 'vitest';
import { adjacentChangesPct, FLOOR_FENCE_IQR, noiseFloorPct } from '../../../src/core/stats/noise-floor.js';
import { seededRandom } from '../../../src/core/stats/seeded-random.js';
import { gaussian } from '../../../testkit/synthetic-run.js';

describe('noiseFloorPct (Q3 + 1.5·IQR of adjacent changes)', () => {
  it('takes the absolute changes from one value to the next, in percent of the earlier one', () => {
    expect(adjacentChangesPct([100, 110, 99])).toEqual([expect.closeTo(10, 9), expect.closeTo(10, 9)]);
  });

  it('is the upper Tukey fence of those changes', () => {
    const floor = noiseFloorPct([100, 102, 100, 101, 100, 103, 100])!;
    expect(floor.changes).toBe(6);
    expect(floor.floorPct).toBeCloseTo(floor.q3Pct + FLOOR_FENCE_IQR * (floor.q3Pct - floor.q1Pct), 12);
    expect(floor.q1Pct).toBeLessThan(floor.q3Pct);
    // rustc-perf's factor 3 on the same history gives a higher floor.
    expect(noiseFloorPct([100, 102, 100, 101, 100, 103, 100], 3)!.floorPct).toBeGreaterThan(floor.floorPct);
  });

  it('sits near 3.4σ for independent normal noise of σ per value, whatever the level', () => {
    const normal = gaussian(seededRandom(5));
    const values = Array.from({ length: 4000 }, () => 50_000 * Math.exp(0.02 * normal()));
    // Half-normal changes of scale √2·σ: Q3 1.150, Q1 0.319 of it; 1.150 + 1.5 × 0.831 = 2.397 → 3.39σ.
    expect(noiseFloorPct(values)!.floorPct).toBeGreaterThan(3.39 * 2 * 0.9);
    expect(noiseFloorPct(values)!.floorPct).toBeLessThan(3.39 * 2 * 1.1);
  });

  it('is not moved by a single step in the history', () => {
    const normal = gaussian(seededRandom(9));
    const flat = Array.from({ length: 60 }, () => 1000 * Math.exp(0.01 * normal()));
    const stepped = flat.map((v, i) => (i >= 30 ? v * 0.7 : v));
    const a = noiseFloorPct(flat)!.floorPct;
    const b = noiseFloorPct(stepped)!.floorPct;
    expect(Math.abs(b - a) / a).toBeLessThan(0.15);
  });

  it('has no floor for fewer than two values or a value that is no measurement', () => {
    expect(noiseFloorPct([5])).toBeNull();
    expect(noiseFloorPct([5, 0, 6])).toBeNull();
    expect(noiseFloorPct([5, Number.NaN, 6])).toBeNull();
  });
});
