import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  addAdaptiveOptions,
  adaptiveFromFlags,
  parseDuration,
  type AdaptiveFlags,
} from '../../../src/adapters/cli/adaptive-flags.js';

/** Parses argv with the adaptive options and returns the plan (or throws what the user would see). */
function plan(argv: string[], roundS = 10) {
  const cmd = addAdaptiveOptions(new Command('run'))
    .exitOverride()
    .configureOutput({ writeErr: () => {} });
  cmd.parse(argv, { from: 'user' });
  return adaptiveFromFlags(cmd.opts<AdaptiveFlags>(), 0.05, roundS);
}

describe('adaptive flags', () => {
  it('are off without --max-rounds or --time-budget, and build the plan with them', () => {
    expect(plan([])).toBeUndefined();
    expect(plan(['--max-rounds', '20'])!.plan.maxRounds).toBe(20);
    const timed = plan(['--time-budget', '45m', '--schedule', '6,12', '--spending', 'pocock'])!;
    expect(timed.timeBudgetS).toBe(2700);
    expect(timed.plan).toMatchObject({ schedule: [6, 12], spending: 'pocock' });
    expect(plan(['--max-rounds', '20'])!.plan.passAlphaTotal).toBe(0.1);
    const strict = plan(['--max-rounds', '20', '--pass-alpha', '0.05'])!.plan;
    expect(strict.passAlphaTotal).toBe(0.05);
    expect(strict.passAlpha!.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(0.05);
  });

  it.each([
    [
      ['--max-rounds', '3'],
      /^--max-rounds must be at least the first look, 6 rounds \(the default --schedule 6,10,15,20,30\), got 3$/,
    ],
    [
      ['--max-rounds', '20', '--schedule', '10,8'],
      /--schedule must be comma-separated, strictly increasing whole round counts >= 1 \(e\.g\. 6,10,15,20,30\), got '10,8'/,
    ],
    [
      ['--max-rounds', '20', '--schedule', '3,8'],
      /^--schedule: the first look at 3 rounds is below the 6 rounds/,
    ],
    [['--time-budget', '30s'], /^--time-budget 30 s is less than one round \(about 60 s/],
    [
      ['--schedule', '6,10'],
      /^--schedule, --spending and --pass-alpha shape adaptive rounds: give --max-rounds N or --time-budget too/,
    ],
    [
      ['--pass-alpha', '0.05'],
      /^--schedule, --spending and --pass-alpha shape adaptive rounds: give --max-rounds N or --time-budget too/,
    ],
    [
      ['--max-rounds', '20', '--pass-alpha', '0.5'],
      /--pass-alpha must be a number between 0 and 0\.5 \(exclusive\), got '0\.5'/,
    ],
    [
      ['--spending', 'linear', '--max-rounds', '10'],
      /--spending must be one of obrien-fleming, pocock, got 'linear'/,
    ],
    [
      ['--time-budget', 'soon'],
      /--time-budget must be a positive duration: a number of seconds, or with the unit s, m, min or h \(e\.g\. 45m, 1\.5h, 900s\), got 'soon'/,
    ],
  ])('refuse %j before anything starts', (argv, message) => {
    expect(() => plan(argv, 60)).toThrow(message);
  });

  it('reads durations in seconds, minutes and hours', () => {
    expect([
      parseDuration('900'),
      parseDuration('900s'),
      parseDuration('15m'),
      parseDuration('1.5h'),
    ]).toEqual([900, 900, 900, 5400]);
  });
});
