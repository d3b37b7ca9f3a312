/**
 * Issue #44: a workload whose instruction counts decided a regression for every head still runs the few
 * rounds its memory judgement needs (a PostgreSQL hacker wants to know whether the memory moved too), while a
 * workload that ran none of the changed code, or a run whose heads all run base's code, still runs none.
 */
import { describe, expect, it } from 'vitest';
import { timedRoundsSkipped } from '../../../src/flows/compare/pipeline/pipeline.js';
import { MIN_MEMORY_RUNS } from '../../../src/core/compare/evidence/memory-evidence.js';
import { cellText } from '../../../src/core/report/evidence/steady-metrics-section.js';

describe('the rounds left after the counts', () => {
  it('a workload its counts decided gets the memory rounds, not none', () => {
    const r = timedRoundsSkipped(false, false, [], ['select-only'], 1);
    expect(r.skipTimedRounds).toBeUndefined();
    expect(r.memoryRounds).toMatchObject({ names: ['select-only'], rounds: MIN_MEMORY_RUNS });
    expect(r.memoryRounds!.why).toMatch(
      /decided a regression for every head, which timed rounds cannot pass: 3 rounds only, at the lowest client count, for their memory/,
    );
  });

  it('untimed workloads stay untimed beside them; all untimed, or nothing to measure, skips the rounds', () => {
    const mixed = timedRoundsSkipped(false, false, ['a'], ['b'], 2);
    expect(mixed.untimedWorkloads?.names).toEqual(['a']);
    expect(mixed.memoryRounds?.names).toEqual(['b']);
    expect(timedRoundsSkipped(false, false, ['a', 'b'], [], 2).skipTimedRounds).toMatch(/executed any/);
    expect(timedRoundsSkipped(true, false, [], ['a'], 1).skipTimedRounds).toMatch(/same compiled code/);
    expect(timedRoundsSkipped(false, true, [], ['a'], 1).skipTimedRounds).toMatch(/--metric instructions/);
    expect(timedRoundsSkipped(false, false, [], [], 1)).toEqual({});
  });
});

describe('backend memory in the steady line', () => {
  it('reads in MB with the change in bytes and percent', () => {
    const row = {
      metric: 'backendMemoryPeakBytes' as const,
      base: 1_957_888,
      head: 6_127_616,
      deltaPct: 213,
    };
    const cell = { metrics: [row] } as unknown as Parameters<typeof cellText>[0];
    expect(cellText(cell, 'backendMemoryPeakBytes')).toBe('1.87 MB → 5.84 MB (+3.98 MB, +213.0%)');
  });
});
