import { describe, expect, it } from 'vitest';
import { RUN_FLAG_NAMES, armOptionsOf, type BuildArmFlags } from '../../src/adapters/cli/commands/run.js';
import { buildArmRefs } from '../../src/flows/compare/options/arm-source.js';
import { collectString } from '../../src/adapters/cli/flag-parsers.js';

const flags = (extra: Partial<BuildArmFlags & { arm: Array<{ label: string; binDir: string }> }>) => ({
  basePatch: [],
  headPatch: [],
  mergeBase: false,
  buildOption: [],
  ...extra,
});

describe('pgperf run --base/--head', () => {
  it('builds the two refs given', () => {
    expect(buildArmRefs(armOptionsOf(flags({ base: 'master', head: 'feature' })), RUN_FLAG_NAMES)).toEqual({
      base: 'master',
      head: 'feature',
    });
  });

  it('with only head patches, head is base plus the patches (the commitfest case)', () => {
    expect(
      buildArmRefs(armOptionsOf(flags({ base: 'master', headPatch: ['v3-0001.patch'] })), RUN_FLAG_NAMES),
    ).toEqual({
      base: 'master',
      head: 'master',
    });
  });

  it.each([
    [{ head: 'feature' }, '--base REF is required'],
    [{ base: 'master' }, '--base master: give --head REF, or --head-patch FILE'],
    [{ base: 'm', head: 'f', arm: [{ label: 'x', binDir: '/b' }] }, '--arm and --base/--head both given'],
    [
      { base: 'm', headPatch: ['p'], mergeBase: true },
      '--merge-base needs a --head that differs from --base',
    ],
  ])('refuses %j', (extra, message) => {
    expect(() => buildArmRefs(armOptionsOf(flags(extra)), RUN_FLAG_NAMES)).toThrow(message);
  });

  it('--build-option accumulates', () => {
    expect(collectString('-Db_lto=true', collectString('-Dc_args=-O3'))).toEqual([
      '-Dc_args=-O3',
      '-Db_lto=true',
    ]);
  });
});
