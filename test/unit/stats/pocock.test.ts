import { describe, expect, it } from 'vitest';
import { normalCdf } from '../../../src/stats/normal-cdf.js';
import { pocockCriticalValue } from '../../../src/stats/pocock-critical-value.js';

// Pocock's constants C_P(K, α), Jennison & Turnbull, Group Sequential Methods (2000), Table 2.1.
const PUBLISHED: Record<string, number[]> = {
  '0.05': [1.96, 2.178, 2.289, 2.361, 2.413, 2.453, 2.485, 2.512, 2.535, 2.555],
  '0.01': [2.576, 2.772, 2.873, 2.939, 2.986, 3.023, 3.053, 3.078, 3.099, 3.117],
  '0.1': [1.645, 1.875, 1.992, 2.067, 2.122, 2.164, 2.197, 2.225, 2.249, 2.27],
};

describe('pocockCriticalValue', () => {
  it.each(Object.entries(PUBLISHED))('matches the published constants at alpha %s', (alpha, constants) => {
    constants.forEach((c, k) => expect(pocockCriticalValue(k + 1, Number(alpha))).toBeCloseTo(c, 3));
  });

  it('gives the per-look levels quoted in the reference (0.0294, 0.0221, 0.0182, 0.0158)', () => {
    const perLook = [2, 3, 4, 5].map((k) => 2 * normalCdf(-pocockCriticalValue(k, 0.05)));
    expect(perLook.map((a) => Number(a.toFixed(4)))).toEqual([0.0294, 0.0221, 0.0182, 0.0158]);
  });

  it('rejects unsupported designs', () => {
    expect(() => pocockCriticalValue(0, 0.05)).toThrow(RangeError);
    expect(() => pocockCriticalValue(11, 0.05)).toThrow(RangeError);
    expect(() => pocockCriticalValue(3, 1)).toThrow(RangeError);
  });
});
