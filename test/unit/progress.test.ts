import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../src/core/util/duration.js';
import { ProgressTracker } from '../../src/run/progress.js';

describe('ProgressTracker', () => {
  it('estimates time left from planned seconds plus the overhead seen per run', () => {
    let now = 0;
    const p = new ProgressTracker(4, 40, () => now);
    now = 12_000;
    p.finished(10, 12);
    // 30 s of planned runs left, plus 3 runs x 2 s overhead.
    expect(p.remainingSeconds()).toBe(36);
    const line = p.line({ kind: 'measured', round: 1, rounds: 2, cell: 'ro@8', arm: 'head', tps: 12345.6 });
    expect(line).toBe('[1/4] round 1/2  ro@8  head  12,346 tps  (elapsed 12s, ~36s left)');
  });

  it('counts a retry as one more run', () => {
    const p = new ProgressTracker(2, 20, () => 0);
    p.finished(10, 10);
    p.addRun(10);
    p.finished(10, 10);
    expect(p.remainingSeconds()).toBe(10);
    expect(p.line({ kind: 'measured', round: 1, rounds: 1, cell: 'c', arm: 'a' })).toMatch(/^\[2\/3\]/);
  });

  it("names a confirmation block's rounds as its own", () => {
    const p = new ProgressTracker(2, 20, () => 0);
    const line = p.line({
      kind: 'measured',
      round: 2,
      rounds: 6,
      confirmation: true,
      cell: 'c@1',
      arm: 'head',
    });
    expect(line).toMatch(/^\[0\/2\] confirmation round 2\/6 {2}c@1 {2}head/);
  });

  it('says when a run failed', () => {
    const p = new ProgressTracker(1, 10, () => 0);
    expect(
      p.line({ kind: 'warmup', round: 1, rounds: 1, cell: 'ro@1', arm: 'base', failure: 'exit code 2' }),
    ).toContain('warm-up  ro@1  base  FAILED: exit code 2');
  });

  it.each([
    [5, '5s'],
    [65, '1m05s'],
    [3725, '1h02m'],
  ])('formats %i s as %s', (s, text) => expect(formatDuration(s)).toBe(text));
});
