import { describe, expect, it } from 'vitest';
import { designSequential } from '../../../src/core/compare/analysis/adaptive.js';
import { roundsText } from '../../../src/run/rounds-origin.js';

const w = (name: string, rounds?: number) => ({ name, ...(rounds !== undefined ? { rounds } : {}) });

describe('the plan line’s rounds', () => {
  it('say adaptive rounds by default, their looks, budget and opt-out', () => {
    const adaptive = { plan: designSequential({}), timeBudgetS: 1200, byDefault: true as const };
    expect(roundsText({ adaptive, roundsOrigin: { optOut: '--fixed-rounds' } }, [w('select-only')])).toBe(
      'rounds: adaptive (looks at 6, 10, 15, 20, 30; obrien-fleming alpha spending; decided cells stop; ' +
        'at most 20 min of measurement, never before the first look; --fixed-rounds to turn off)',
    );
    // Asked for (--max-rounds 20): no budget, nothing to turn off.
    expect(roundsText({ adaptive: { plan: designSequential({ maxRounds: 20 }) } }, [w('a', 10)])).toBe(
      'rounds: adaptive (looks at 6, 10, 15, 20; obrien-fleming alpha spending; decided cells stop)',
    );
  });

  it('say fixed rounds and where they come from', () => {
    expect(roundsText({ rounds: 8, roundsOrigin: { given: '--rounds' } }, [w('a', 10)])).toBe(
      'rounds: 8 (--rounds)',
    );
    expect(roundsText({ roundsOrigin: {} }, [w('select-only', 10)])).toBe(
      'rounds: 10 (workload select-only)',
    );
    expect(roundsText({}, [w('a', 10), w('b')])).toBe(
      'rounds: 10 (workload a), 10 (workload b, the default)',
    );
    expect(roundsText({ roundsOrigin: { fixedBecause: '--fixed-rounds' } }, [w('a')])).toBe(
      'rounds: 10 (the default); fixed: --fixed-rounds',
    );
    expect(
      roundsText({ roundsOrigin: { fixedBecause: 'a stored baseline is compared once' } }, [w('a', 6)]),
    ).toBe('rounds: 6 (workload a); fixed: a stored baseline is compared once');
  });

  it('say the memory rounds of workloads the counts decided, beside the others', () => {
    const memoryRounds = { names: ['select-only'], rounds: 3 };
    const adaptive = { plan: designSequential({}), timeBudgetS: 1200, byDefault: true as const };
    expect(roundsText({ adaptive, memoryRounds }, [w('select-only')])).toBe(
      'rounds: 3 for select-only (memory only: the counts decided)',
    );
    expect(roundsText({ rounds: 8, memoryRounds }, [w('select-only'), w('tpcb-like')])).toBe(
      'rounds: 8; 3 for select-only (memory only: the counts decided)',
    );
  });
});
