/**
 * The request both adapters build for runBisection from plain values: what is given passes through, what
 * is not stays out of the request (never a key set to undefined), adaptive tests take the analysis' alpha,
 * and tries default to DEFAULT_TRIES.
 */
import { describe, expect, it } from 'vitest';
import { bisectRequestOf } from '../../../src/flows/bisect/bisect-request.js';
import { DEFAULT_TRIES } from '../../../src/flows/bisect/one-cell.js';
import { resolveAnalysis } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { parseWorkload } from '../../../src/drivers/load-workload.js';
import { parseRepo } from '../../../src/postgres/builds/source.js';

const workload = parseWorkload(
  'name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1]\nrounds: 6\n',
  'w.yml',
);
const analysis = resolveAnalysis({ alpha: 0.01 });
const measure = {
  repo: parseRepo('https://github.com/postgres/postgres.git', '/tmp'),
  cacheDir: '/cache',
  extraOptions: ['-Dcassert=true'],
  outDir: '/out',
};

describe('bisectRequestOf', () => {
  it('leaves out what was not given, and defaults the tries', () => {
    const request = bisectRequestOf({ good: 'v1', bad: 'main', workload }, analysis, {
      ...measure,
      rounds: undefined,
      seed: undefined,
      adaptive: undefined,
    });
    expect(request).toEqual({
      ...measure,
      good: 'v1',
      bad: 'main',
      workload,
      analysis,
      tries: DEFAULT_TRIES,
    });
    expect(Object.keys(request)).not.toContain('rounds');
  });

  it('passes what was given, the adaptive tests at the analysis alpha', () => {
    const names = { good: "input 'base-ref'", bad: "input 'head-ref'" };
    const request = bisectRequestOf({ good: 'v1', bad: 'main', names, workload }, analysis, {
      ...measure,
      rounds: 8,
      durationS: 5,
      adaptive: { maxRounds: 40, schedule: [10, 20, 40], spending: undefined },
      tries: 3,
      verifyBad: false,
      seed: 7,
      runAs: 'postgres',
      tmpDir: '/scratch',
    });
    expect(request).toMatchObject({ names, rounds: 8, durationS: 5, tries: 3, verifyBad: false, seed: 7 });
    expect(request).toMatchObject({ runAs: 'postgres', tmpDir: '/scratch' });
    expect(request.adaptive).toEqual({ alpha: 0.01, maxRounds: 40, schedule: [10, 20, 40] });
  });
});
