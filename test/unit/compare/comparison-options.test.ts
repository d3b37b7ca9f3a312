import { describe, expect, it } from 'vitest';
import { INPUT_NAMES } from '../../../src/adapters/action/modes/benchmark-mode.js';
import { runIdSeedOf } from '../../../src/adapters/action/shard-job.js';
import { RUN_FLAG_NAMES } from '../../../src/adapters/cli/commands/run.js';
import { parseWorkload } from '../../../src/drivers/load-workload.js';
import { adaptiveDesignOf } from '../../../src/flows/compare/options/adaptive-design.js';
import {
  comparisonOf,
  type ComparisonNames,
  type ComparisonOptions,
} from '../../../src/flows/compare/options/comparison-options.js';
import { OptionError } from '../../../src/flows/compare/options/option-error.js';
import { nightlyHeadOf } from '../../../src/flows/nightly/nightly-head.js';
import { selectShard } from '../../../src/run/shards.js';

/** The CLI's spelling, as `pgperf run` names its flags. */
const FLAGS = RUN_FLAG_NAMES;

const workload = () =>
  parseWorkload('name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1, 2]\nduration: 10\n', 'w.yml');

function options(more: Partial<ComparisonOptions> = {}): ComparisonOptions {
  return {
    arms: {
      kind: 'installed',
      arms: [
        { label: 'base', binDir: '/a', settings: {} },
        { label: 'head', binDir: '/b', settings: {} },
      ],
    },
    workloads: [workload()],
    baseline: { kind: 'same-job' },
    analysis: {},
    adaptive: {},
    explain: false,
    instructionCounter: { counter: 'auto' },
    order: 'random',
    force: false,
    dataChecksums: false,
    ...more,
  };
}

/** The message `options` is refused with, in each adapter's spelling. */
function refusals(more: Partial<ComparisonOptions>): [string, string] {
  const said = (names: ComparisonNames) => {
    try {
      comparisonOf(options(more), names);
    } catch (e) {
      expect(e).toBeInstanceOf(Error);
      return (e as Error).message;
    }
    throw new Error('not refused');
  };
  return [said(FLAGS), said(INPUT_NAMES)];
}

describe('the comparison options', () => {
  it('become the pipeline request: client counts and instruction counting in copies, no undefined fields', () => {
    const given = options({ clients: [4, 16], instructions: true, rounds: 6, seed: undefined });
    const { request, stored } = comparisonOf(given, FLAGS);
    expect(request.workloads.map((w) => w.clients)).toEqual([[4, 16]]);
    expect(request.workloads[0]!.instructions).toBeDefined();
    expect(given.workloads[0]!.clients).toEqual([1, 2]);
    expect(request.workloads[0]!.clients).not.toBe(given.clients);
    expect(request).toMatchObject({ rounds: 6, planCheck: 'refuse', order: 'random' });
    expect('seed' in request).toBe(false);
    expect(request.analysis.alpha).toBe(0.05);
    expect(stored).toBeUndefined();
  });

  it('name the controls as the adapter spells them, and plan a stored baseline loosely', () => {
    const { request, stored } = comparisonOf(
      options({
        controls: { governor: 'performance' },
        baseline: { kind: 'stored', ref: 'abc' },
        storedBaseline: { allowFingerprintMismatch: false, sentinelRounds: 2, onDrift: 'refuse' },
      }),
      INPUT_NAMES,
    );
    expect(request.controls).toEqual({
      governor: 'performance',
      fields: { cpuDmaLatency: "input 'cpu-dma-latency'", governor: "input 'governor'" },
    });
    expect(request.planCheck).toBe('warn');
    expect(stored).toEqual({
      ref: 'abc',
      allowFingerprintMismatch: false,
      sentinelRounds: 2,
      onDrift: 'refuse',
    });
  });

  it.each<[string, Partial<ComparisonOptions>, string, string]>([
    [
      'rounds with adaptive rounds',
      { rounds: 5, adaptive: { maxRounds: 20 } },
      '--rounds and --max-rounds/--time-budget both given: adaptive runs take their rounds from the looks',
      "input 'rounds' and inputs 'max-rounds'/'time-budget' both given: adaptive runs take their rounds from the looks",
    ],
    [
      'a round cap below the first look',
      { adaptive: { maxRounds: 3 } },
      '--max-rounds must be at least the first look, 6 rounds (the default --schedule 6,10,15,20,30), got 3',
      "input 'max-rounds' must be at least the first look, 6 rounds (the default schedule 6,10,15,20,30), got 3",
    ],
    [
      'a time budget shorter than a round',
      { adaptive: { timeBudgetS: 30 } },
      '--time-budget 30 s is less than one round (about 40 s for every cell and arm); give at least 240 s for the first look',
      "input 'time-budget' 30 s is less than one round (about 40 s for every cell and arm); give at least 240 s for the first look",
    ],
    [
      'a shard against a stored baseline',
      { shard: { index: 1, count: 2 }, seed: 1, baseline: { kind: 'stored' } },
      '--shard and --baseline stored both given: a sharded comparison measures base and head in each shard (--baseline same-job)',
      "input 'shard' and input 'baseline' stored both given: a sharded comparison measures base and head in each shard (input 'baseline' same-job)",
    ],
    [
      'a shard without a seed',
      { shard: { index: 1, count: 2 } },
      '--shard needs --seed N: every shard must use the same seed (e.g. the workflow run number)',
      "input 'shard' needs input 'seed' N: every shard must use the same seed (e.g. the workflow run number)",
    ],
    [
      'a stored baseline with adaptive rounds',
      {
        baseline: { kind: 'stored' },
        adaptive: { maxRounds: 20 },
        storedBaseline: { allowFingerprintMismatch: false, sentinelRounds: 2, onDrift: 'refuse' },
      },
      '--baseline stored and --max-rounds/--time-budget both given: a stored baseline is compared once, give --rounds',
      "input 'baseline' stored and inputs 'max-rounds'/'time-budget' both given: a stored baseline is compared once, give input 'rounds'",
    ],
  ])('refuse %s, in each adapter’s spelling', (_what, more, cli, action) => {
    expect(refusals(more)).toEqual([cli, action]);
  });

  it('key a refusal by its option', () => {
    const names = { ...FLAGS };
    expect(() => adaptiveDesignOf({ passAlpha: 0.05 }, 0.05, 0, names)).toThrow(OptionError);
    try {
      comparisonOf(options({ rounds: 5, adaptive: { maxRounds: 20 } }), FLAGS);
    } catch (e) {
      expect((e as OptionError).option).toBe('rounds');
    }
  });
});

describe('the rounds of a comparison (issue #38: adaptive by default where no rounds are given)', () => {
  const own = (rounds: number) =>
    parseWorkload(
      `name: fixed\ntool: pgbench\nbuiltin: select-only\nclients: [1]\nduration: 10\nrounds: ${rounds}\n`,
      'fixed.yml',
    );
  const stored = {
    baseline: { kind: 'stored' } as const,
    storedBaseline: { allowFingerprintMismatch: false, sentinelRounds: 2, onDrift: 'refuse' } as const,
  };
  /** The request's rounds: the adaptive design, the fixed rounds and where they come from. */
  const roundsOf = (more: Partial<ComparisonOptions>, names: ComparisonNames = FLAGS) => {
    const { request } = comparisonOf(options(more), names);
    return { adaptive: request.adaptive, rounds: request.rounds, origin: request.roundsOrigin };
  };

  it('are adaptive by default: the default looks, at most 30 rounds, within 20 minutes, never before the first look', () => {
    const { adaptive, rounds, origin } = roundsOf({});
    expect(adaptive).toMatchObject({ timeBudgetS: 1200, byDefault: true });
    expect(adaptive!.plan).toMatchObject({ schedule: [6, 10, 15, 20, 30], maxRounds: 30, alpha: 0.05 });
    expect(rounds).toBeUndefined();
    expect(origin).toEqual({ optOut: '--fixed-rounds' });
    expect(roundsOf({}, INPUT_NAMES).origin).toEqual({ optOut: "input 'adaptive' false" });
    // A round longer than the default budget is not refused: the budget waits for the first look.
    expect(roundsOf({ durationS: 3600 }).adaptive).toMatchObject({ timeBudgetS: 1200, byDefault: true });
    // The shaping options shape the default design.
    expect(roundsOf({ adaptive: { schedule: [6, 12], passAlpha: 0.05 } }).adaptive!.plan).toMatchObject({
      schedule: [6, 12],
      maxRounds: 12,
      passAlphaTotal: 0.05,
    });
  });

  it('are fixed when given: --rounds (input rounds) for every workload', () => {
    expect(roundsOf({ rounds: 8 })).toEqual({
      adaptive: undefined,
      rounds: 8,
      origin: { given: '--rounds' },
    });
    expect(roundsOf({ rounds: 8 }, INPUT_NAMES).origin).toEqual({ given: "input 'rounds'" });
  });

  it('are fixed when any workload of the run sets rounds in its file: each its own (DEFAULT_ROUNDS else)', () => {
    const r = roundsOf({ workloads: [workload(), own(10)] });
    expect(r).toEqual({ adaptive: undefined, rounds: undefined, origin: {} });
  });

  it('are fixed with the opt-out (--fixed-rounds, input adaptive false), a stored baseline or a shard', () => {
    expect(roundsOf({ fixedRounds: true })).toEqual({
      adaptive: undefined,
      rounds: undefined,
      origin: { fixedBecause: '--fixed-rounds' },
    });
    expect(roundsOf({ fixedRounds: true }, INPUT_NAMES).origin).toEqual({
      fixedBecause: "input 'adaptive' false",
    });
    expect(roundsOf(stored)).toMatchObject({
      adaptive: undefined,
      origin: { fixedBecause: 'a stored baseline is compared once' },
    });
    expect(roundsOf({ shard: { index: 1, count: 2 }, seed: 1 })).toMatchObject({
      adaptive: undefined,
      origin: { fixedBecause: 'every shard of a matrix runs the same rounds' },
    });
  });

  it('are adaptive as asked with --max-rounds or --time-budget (no default budget), over workloads with rounds too', () => {
    const capped = roundsOf({ adaptive: { maxRounds: 20 }, workloads: [own(10)] });
    expect(capped.adaptive).toEqual({ plan: expect.objectContaining({ maxRounds: 20 }) });
    expect(capped.origin).toEqual({});
    const timed = roundsOf({ adaptive: { timeBudgetS: 3600 } });
    expect(timed.adaptive).toMatchObject({ timeBudgetS: 3600, plan: { maxRounds: 30 } });
    expect(timed.adaptive!.byDefault).toBeUndefined();
  });

  it.each<[string, Partial<ComparisonOptions>, string, string]>([
    [
      'the opt-out with adaptive rounds asked for',
      { fixedRounds: true, adaptive: { maxRounds: 20 } },
      '--fixed-rounds and --max-rounds/--time-budget both given: fixed rounds or adaptive ones, give one',
      "input 'adaptive' false and inputs 'max-rounds'/'time-budget' both given: fixed rounds or adaptive ones, give one",
    ],
    [
      'a shaping option with fixed rounds from a workload',
      { workloads: [own(10)], adaptive: { passAlpha: 0.05 } },
      '--pass-alpha shapes adaptive rounds, and the rounds here are fixed (workload fixed sets rounds): remove it, or ask for adaptive rounds with --max-rounds N or --time-budget',
      "input 'pass-alpha' shapes adaptive rounds, and the rounds here are fixed (workload fixed sets rounds): remove it, or ask for adaptive rounds with input 'max-rounds' N or input 'time-budget'",
    ],
    [
      'a shaping option with --rounds',
      { rounds: 8, adaptive: { schedule: [6, 12] } },
      '--schedule shapes adaptive rounds, and the rounds here are fixed (--rounds 8): remove it',
      "schedule shapes adaptive rounds, and the rounds here are fixed (input 'rounds' 8): remove it",
    ],
  ])('refuse %s, in each adapter’s spelling', (_what, more, cli, action) => {
    expect(refusals(more)).toEqual([cli, action]);
  });
});

describe('the nightly head', () => {
  const names = { bin: '--bin', ref: '--ref', commit: '--commit', repo: '--repo' };
  const inputNames = {
    bin: "input 'head-bin-dir'",
    ref: "input 'head-ref'",
    commit: "input 'head-ref'",
    repo: "input 'repo'",
  };
  const source = () => ({
    repo: { input: '/src', url: 'file:///src', local: true },
    extraOptions: [],
    cacheDir: '/c',
  });
  const sha = 'e'.repeat(40);
  it('is the install given, or the commit built alone (a full sha recorded as a sha)', () => {
    expect(nightlyHeadOf({ binDir: '/bin', sha: 'abc', source }, names)).toEqual({
      head: { kind: 'installed', binDir: '/bin' },
      commit: { sha: 'abc', chosenBy: 'nightly: --commit (--bin /bin)' },
    });
    expect(nightlyHeadOf({ ref: sha, source }, names)).toMatchObject({
      head: { kind: 'build', request: { baseRef: sha, headRef: sha, headOnly: true } },
      commit: { sha, chosenBy: 'nightly: --ref' },
    });
    expect(nightlyHeadOf({ ref: 'master', source }, names).commit).toEqual({
      ref: 'master',
      chosenBy: 'nightly: --ref',
    });
    expect(nightlyHeadOf({ binDir: '/bin', source }, names).commit).toEqual({
      chosenBy: 'nightly (--bin /bin)',
    });
    expect(() => nightlyHeadOf({ source }, names)).toThrow(
      'nothing to measure: give --ref BRANCH (built from --repo) or --bin DIR',
    );
  });

  it("takes the commit the workflow runs on when none is given, said in the Action's names", () => {
    const event = { name: 'schedule', sha, ref: 'master' };
    expect(nightlyHeadOf({ event, source }, inputNames)).toMatchObject({
      head: { kind: 'build', request: { headRef: sha } },
      commit: { sha, ref: 'master', chosenBy: "nightly: the schedule event's commit" },
    });
    expect(nightlyHeadOf({ ref: 'REL_18', event, binDir: '/i', source }, inputNames)).toEqual({
      head: { kind: 'installed', binDir: '/i' },
      commit: { ref: 'REL_18', chosenBy: "nightly: input 'head-ref' (input 'head-bin-dir' /i)" },
    });
  });
});

describe('the shard of a matrix job', () => {
  const w = parseWorkload(
    'name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1, 2, 4]\nrounds: 4\n',
    'w.yml',
  );
  /** The comparison of a benchmark job with the inputs shard and seed, and GITHUB_RUN_ID as the job reads it. */
  const sharded = (inputs: { shard: { index: number; count: number }; seed?: number }, runId?: string) =>
    comparisonOf(
      options({
        workloads: [w],
        shard: inputs.shard,
        ...(inputs.seed !== undefined ? { seed: inputs.seed } : {}),
        runIdSeed: runIdSeedOf(runId === undefined ? {} : { runId }),
      }),
      INPUT_NAMES,
    ).request;
  it('defaults the seed to the workflow run id, and refuses a shard without a usable seed', () => {
    const got = sharded({ shard: { index: 2, count: 3 } }, '987654321');
    expect(got.seed).toBe(987654321);
    expect(got.shard).toEqual(selectShard([w], { index: 2, count: 3 }).info);
    expect(got.workloads).toEqual(selectShard([w], { index: 2, count: 3 }).workloads);
    expect(sharded({ shard: { index: 1, count: 3 }, seed: 5 }, '987654321').seed).toBe(5);
    expect(() => sharded({ shard: { index: 1, count: 3 } })).toThrow(
      "input 'shard' needs input 'seed' N: every shard must use the same seed (e.g. the workflow run number); GITHUB_RUN_ID is not set",
    );
    expect(() => sharded({ shard: { index: 1, count: 3 } }, '12x')).toThrow(
      "input 'shard' needs input 'seed' N: every shard must use the same seed (e.g. the workflow run number); GITHUB_RUN_ID is '12x', not a whole number",
    );
    expect(() => sharded({ shard: { index: 1, count: 3 } }, '99999999999999999999')).toThrow(
      "GITHUB_RUN_ID is '99999999999999999999', not a whole number",
    );
    expect(() => sharded({ shard: { index: 1, count: 4 } }, '1')).toThrow(
      "input 'shard' 1/4: 4 shards for 3 cells",
    );
  });
});
