import { describe, expect, it } from 'vitest';
import {
  clientCounts,
  collectArm,
  collectSet,
  oneOf,
  positiveInt,
} from '../../src/adapters/cli/flag-parsers.js';
import { RUN_FLAG_NAMES } from '../../src/adapters/cli/commands/run.js';
import { armsWithSettings } from '../../src/flows/compare/options/arm-source.js';
import { CLIENT_COUNTS } from '../../src/core/bounds.js';

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

  it('--clients: distinct client counts, comma-separated, in the order given', () => {
    const parse = clientCounts('--clients');
    expect(parse('1')).toEqual([1]);
    expect(parse('64, 1,4')).toEqual([64, 1, 4]);
    const shape =
      '--clients must be client counts separated by commas (e.g. 1,4,64), each a whole number from 1 to 10000; got';
    expect(() => parse('1,x')).toThrow(`${shape} '1,x' (bad: 'x')`);
    expect(() => parse('0')).toThrow(`${shape} '0' (bad: '0')`);
    expect(() => parse('1,,4')).toThrow(`${shape} '1,,4' (bad: '')`);
    expect(() => parse('2.5')).toThrow(`${shape} '2.5' (bad: '2.5')`);
    expect(() => parse('-4')).toThrow(`${shape} '-4' (bad: '-4')`);
    expect(() => parse('1,4,1')).toThrow("--clients must give each client count once, got '1,4,1' (1 twice)");
    const many = Array.from({ length: CLIENT_COUNTS.max + 1 }, (_, i) => i + 1).join(',');
    expect(() => parse(many)).toThrow(
      `--clients must give at most ${CLIENT_COUNTS.max} client counts (each is a cell every arm measures in every round), got ${CLIENT_COUNTS.max + 1}`,
    );
  });

  it('a --set for an unknown arm is refused', () => {
    expect(() =>
      armsWithSettings(
        [{ label: 'base', binDir: '/a' }],
        [{ arm: 'head', name: 'x', value: '1' }],
        RUN_FLAG_NAMES,
      ),
    ).toThrow('--set head:x=1: no arm is labelled "head" (arms: base)');
    expect(
      armsWithSettings(
        [
          { label: 'base', binDir: '/a' },
          { label: 'head', binDir: '/a' },
        ],
        [{ arm: 'head', name: 'synchronous_commit', value: 'off' }],
        RUN_FLAG_NAMES,
      ).map((a) => a.settings),
    ).toEqual([{}, { synchronous_commit: 'off' }]);
  });
});
