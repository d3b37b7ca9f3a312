import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { updateReadme } from '../../scripts/action-docs.js';
import { parseInputs } from '../../src/adapters/action/inputs.js';

const actionYml = readFileSync(new URL('../../action.yml', import.meta.url), 'utf8');
const action = parse(actionYml) as {
  inputs: Record<string, { default?: string }>;
  runs: Record<string, string>;
};
const defaults = (overrides: Record<string, string> = {}) => {
  const values: Record<string, string> = {
    ...Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, v.default ?? ''])),
  };
  values['github-token'] = 'token';
  Object.assign(values, overrides);
  return (name: string) => {
    if (!(name in values)) throw new Error(`parseInputs read '${name}', which action.yml does not declare`);
    return values[name]!;
  };
};

describe('action.yml', () => {
  it('runs dist/index.js on node24', () => {
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/index.js' });
  });

  it('its defaults parse, and every input parseInputs reads is declared', () => {
    const inputs = parseInputs(defaults());
    expect(inputs).toMatchObject({
      mode: 'benchmark',
      failOn: 'regression',
      alpha: 0.05,
      threshold: 2,
      comment: true,
      commitStatus: true,
      commentId: 'default',
      resultsDir: 'pgperf-results',
      workloads: ['select-only'],
      patches: [],
    });
  });

  it('the docs/action.md tables are generated from it (run: npx tsx scripts/update-readme.ts)', () => {
    const readme = readFileSync(new URL('../../docs/action.md', import.meta.url), 'utf8');
    expect(updateReadme(readme, actionYml)).toBe(readme);
  });
});

describe('parseInputs', () => {
  it.each([
    [{ 'fail-on': 'always' }, "input 'fail-on' must be one of regression, inconclusive, never, got 'always'"],
    [
      { mode: 'x' },
      "input 'mode' must be one of benchmark, comment, nightly, consolidate, calibrate, bisect, command, attribute, got 'x'",
    ],
    [{ alpha: '1.5' }, "input 'alpha' must be a number between 0 and 0.5 (exclusive, e.g. 0.05), got '1.5'"],
    [
      { threshold: '-1' },
      "input 'threshold' must be a number between 0 and 100 (exclusive, e.g. 2), got '-1'",
    ],
    [{ rounds: '2.5' }, "input 'rounds' must be a whole number >= 1, got '2.5'"],
    [{ comment: 'yes' }, "input 'comment' must be true or false, got 'yes'"],
    [{ 'comment-id': 'a b' }, "input 'comment-id' must be letters, digits"],
    [{ 'github-token': '' }, "input 'github-token' is empty but 'comment' or 'commit-status' is on"],
    [{ 'base-bin-dir': '/x' }, "inputs 'base-bin-dir' and 'head-bin-dir' go together"],
    [{ shard: '4/3' }, "input 'shard' must be I/N with 1 <= I <= N (e.g. 2/3), got '4/3'"],
    [{ shard: '1/3', mode: 'comment' }, "input 'shard' runs part of a benchmark, but mode is comment"],
    [{ seed: '-1' }, "input 'seed' must be a whole number >= 1, got '-1'"],
    [{ mode: 'bisect', clients: '0' }, "input 'clients' must be a whole number >= 1, got '0'"],
    [
      { clients: '4' },
      "input 'clients' (4) chooses the one cell of mode bisect; mode benchmark does not read it",
    ],
    [
      { 'plan-id': 'abc' },
      "input 'plan-id' must be a plan id (16 hex digits, as pgperf plan prints it), got 'abc'",
    ],
    [
      { 'wait-timeout': 'soon' },
      "input 'wait-timeout' must be a duration such as 45m, 1h or 900s, got 'soon'",
    ],
    [
      { mode: 'consolidate', 'comment-on': 'change' },
      "input 'comment-on' (change) applies to the PR comment of modes benchmark and comment; mode consolidate",
    ],
    [
      { mode: 'comment', 'confirm-rounds': '3' },
      "input 'confirm-rounds' (3) sets the confirmation block of mode benchmark",
    ],
    [{ 'confirm-rounds': '-1' }, "input 'confirm-rounds' must be a whole number >= 0, got '-1'"],
    [
      { 'instruction-counter': 'pmu' },
      "input 'instruction-counter' must be one of auto, cachegrind, perf, got 'pmu'",
    ],
    [
      { mode: 'nightly', explain: 'true' },
      "input 'explain' (true) profiles the changes mode benchmark measures; mode nightly does not read it: remove it",
    ],
    [
      { mode: 'nightly', 'pass-alpha': '0.05' },
      "input 'pass-alpha' (0.05) shapes the adaptive rounds of mode benchmark; mode nightly does not read it",
    ],
    [
      { 'pass-alpha': '0.5', 'max-rounds': '20' },
      "input 'pass-alpha' must be a number between 0 and 0.5 (exclusive), got '0.5'",
    ],
  ])('%j is refused with a message naming the input', (overrides, message) => {
    expect(() => parseInputs(defaults(overrides))).toThrow(message);
  });

  it('machine controls are opt-in: unset by default, a negative latency refused naming the input', () => {
    const unset = parseInputs(defaults());
    expect(unset.cpuDmaLatencyUs).toBeUndefined();
    expect(unset.governor).toBeUndefined();
    expect(parseInputs(defaults({ 'cpu-dma-latency': '0', governor: 'performance' }))).toMatchObject({
      cpuDmaLatencyUs: 0,
      governor: 'performance',
    });
    expect(() => parseInputs(defaults({ 'cpu-dma-latency': '-5' }))).toThrow(
      "input 'cpu-dma-latency' must be a whole number >= 0, got '-5'",
    );
  });

  it('reads lists one per line or comma-separated, and numbers', () => {
    const inputs = parseInputs(
      defaults({
        workloads: 'select-only\n tpcb-like, custom/w.yml\n',
        rounds: '8',
        'pr-number': '12',
        comment: 'false',
        'commit-status': 'false',
        'github-token': '',
      }),
    );
    expect(inputs.workloads).toEqual(['select-only', 'tpcb-like', 'custom/w.yml']);
    expect(inputs.rounds).toBe(8);
    expect(inputs.prNumber).toBe(12);
    expect(inputs.githubToken).toBeUndefined();
  });

  it('reads the fleet inputs: shard, seed, plan-id and wait-timeout (10m by default, 0 for no wait)', () => {
    expect(parseInputs(defaults())).toMatchObject({ waitTimeoutS: 600 });
    expect(parseInputs(defaults()).shard).toBeUndefined();
    expect(
      parseInputs(
        defaults({ shard: '2/3', seed: '12345678901', 'plan-id': '0123456789abcdef', 'wait-timeout': '90s' }),
      ),
    ).toMatchObject({
      shard: { index: 2, count: 3 },
      seed: 12345678901,
      planId: '0123456789abcdef',
      waitTimeoutS: 90,
    });
    expect(parseInputs(defaults({ mode: 'consolidate', 'wait-timeout': '0' })).waitTimeoutS).toBe(0);
  });
});
