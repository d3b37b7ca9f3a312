import { describe, expect, it } from 'vitest';
import { collectArm, collectSet, oneOf, positiveInt } from '../../src/adapters/cli/options.js';
import { armsWithSettings } from '../../src/adapters/cli/commands/run.js';

describe('CLI flag parsers', () => {
  it('--arm LABEL=BINDIR accumulates', () => {
    expect(collectArm('head=/b', collectArm('base=/a'))).toEqual([
      { label: 'base', binDir: '/a' },
      { label: 'head', binDir: '/b' },
    ]);
    expect(() => collectArm('/usr/lib/postgresql/15/bin')).toThrow(
      "--arm must be LABEL=BINDIR (e.g. base=/usr/lib/postgresql/15/bin), got '/usr/lib/postgresql/15/bin'",
    );
  });

  it('--set ARM:NAME=VALUE', () => {
    expect(collectSet('head:synchronous_commit=off')).toEqual([
      { arm: 'head', name: 'synchronous_commit', value: 'off' },
    ]);
    expect(() => collectSet('synchronous_commit=off')).toThrow(/--set must be ARM:NAME=VALUE/);
  });

  it('numbers and choices name the flag and the bad value', () => {
    expect(positiveInt('--rounds')('7')).toBe(7);
    expect(() => positiveInt('--rounds')('0')).toThrow("--rounds must be a positive integer, got '0'");
    expect(() => positiveInt('--rounds')('2.5')).toThrow("got '2.5'");
    expect(() => oneOf('--order', ['random', 'abba'])('ab')).toThrow(
      "--order must be one of random, abba, got 'ab'",
    );
  });

  it('a --set for an unknown arm is refused', () => {
    expect(() =>
      armsWithSettings([{ label: 'base', binDir: '/a' }], [{ arm: 'head', name: 'x', value: '1' }]),
    ).toThrow('--set head:x=1: no arm is labelled "head" (arms: base)');
    expect(
      armsWithSettings(
        [
          { label: 'base', binDir: '/a' },
          { label: 'head', binDir: '/a' },
        ],
        [{ arm: 'head', name: 'synchronous_commit', value: 'off' }],
      ).map((a) => a.settings),
    ).toEqual([{}, { synchronous_commit: 'off' }]);
  });
});
