import { describe, expect, it } from 'vitest';
import {
  lookAtRounds,
  perLookAlpha,
  sequentialLook,
  validateSchedule,
} from '../../../src/compare/sequential.js';

describe('sequential design', () => {
  it('uses Pocock per-look alphas (statistics.md §2.6)', () => {
    expect(perLookAlpha(1, 0.05)).toBe(0.05);
    expect(perLookAlpha(3, 0.05)).toBeCloseTo(0.0221, 4);
    expect(perLookAlpha(4, 0.05)).toBeCloseTo(0.0182, 4);
    expect(sequentialLook([6, 12, 18], 2, 0.05)).toMatchObject({ look: 2, looks: 3, schedule: [6, 12, 18] });
  });

  it('maps completed rounds to the look reached', () => {
    expect(lookAtRounds([6, 12, 18], 5)).toBe(0);
    expect(lookAtRounds([6, 12, 18], 6)).toBe(1);
    expect(lookAtRounds([6, 12, 18], 13)).toBe(2);
    expect(lookAtRounds([6, 12, 18], 40)).toBe(3);
  });

  it('accepts only pre-declared increasing schedules and looks inside them', () => {
    expect(() => validateSchedule([6, 12, 18])).not.toThrow();
    for (const bad of [[], [0, 6], [6, 6], [12, 6], [6.5], Array.from({ length: 11 }, (_, i) => i + 1)]) {
      expect(() => validateSchedule(bad)).toThrow(RangeError);
    }
    expect(() => sequentialLook([6, 12], 3, 0.05)).toThrow(/look must be between 1 and 2, got 3/);
  });
});
