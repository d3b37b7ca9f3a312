import { describe, expect, it } from 'vitest';
import { benjaminiHochbergAdjust } from '../../../src/core/stats/benjamini-hochberg.js';
import { holmAdjust } from '../../../src/core/stats/holm.js';
import { expectClose, vectors } from './vectors.js';

const { sweep_8_cells, ties_and_extremes } = vectors.multiple_testing;
const families = Object.entries({ sweep_8_cells, ties_and_extremes });

describe.each(families)('%s (statsmodels 0.15.0)', (_, family) => {
  it('Holm adjusted p and rejections', () => {
    const adjusted = holmAdjust(family.p_raw);
    adjusted.forEach((p, i) => expectClose(p, family.holm.p_adjusted[i]!));
    expect(adjusted.map((p) => p < family.alpha)).toEqual(family.holm.reject);
  });

  it('Benjamini-Hochberg adjusted p and rejections', () => {
    const adjusted = benjaminiHochbergAdjust(family.p_raw);
    adjusted.forEach((p, i) => expectClose(p, family.benjamini_hochberg.p_adjusted[i]!));
    expect(adjusted.map((p) => p < family.alpha)).toEqual(family.benjamini_hochberg.reject);
  });
});

describe('adjustments', () => {
  it('never decrease a p-value, stay in [0, 1] and accept empty families', () => {
    const p = [0.3, 0.001, 0.9, 0.04, 0.04];
    for (const adjust of [holmAdjust, benjaminiHochbergAdjust]) {
      adjust(p).forEach((q, i) => {
        expect(q).toBeGreaterThanOrEqual(p[i]!);
        expect(q).toBeLessThanOrEqual(1);
      });
      expect(adjust([])).toEqual([]);
      expect(adjust([0.02])).toEqual([0.02]);
    }
  });
});
