/**
 * The Action's rounds (issue #38): adaptive by default where no rounds are given, input 'adaptive' false
 * for fixed rounds, through parseInputs and mode benchmark's real path. Nothing is started: a run is refused
 * by the rule's checks or by its plan check, whose message names the rounds it would run and the level it
 * tests at (a fixed design: alpha; an adaptive one: its last look's).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAction } from '../../src/adapters/action/modes/run-action.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { actionContext } from '../helpers/action-events.js';
import { parseActionInputs } from '../helpers/action-inputs.js';
import { useTmpDir } from '../helpers/tmp-dir.js';

const root = new URL('../../', import.meta.url).pathname;
const tmp = useTmpDir('pgperf-action-rounds-');
/** 100 cells: more than few rounds can decide after Holm. */
const MANY_CLIENTS = Array.from({ length: 100 }, (_, i) => i + 1).join(',');

/** Mode benchmark on two missing installs with `inputs`: the message it is refused with. */
async function refusal(inputs: Record<string, string>): Promise<string> {
  const error = await runAction(
    parseActionInputs({
      comment: 'false',
      'commit-status': 'false',
      'base-bin-dir': '/nonexistent/base',
      'head-bin-dir': '/nonexistent/head',
      'results-dir': path.join(tmp(), 'out'),
      'client-counts': MANY_CLIENTS,
      ...inputs,
    }),
    actionContext('schedule', { schedule: '5 3 * * 0' }, tmp()),
    {
      logger: memoryLogger(),
      runner: nodeProcessRunner,
      io: { setOutput: () => {}, writeSummary: async () => {} },
      cacheDir: path.join(tmp(), 'cache'),
      actionDir: root,
      build: () => Promise.reject(new Error('the build started')),
      stores: { open: () => Promise.reject(new Error('no store here')), tempDir: tmp() },
    },
  ).then(
    () => 'not refused',
    (e: unknown) => String(e),
  );
  return error;
}

describe("the Action's input 'adaptive'", () => {
  it("is true by default, 'false' turns the default off, anything else is refused naming it", () => {
    expect(parseActionInputs({}).adaptive).toBe(true);
    expect(parseActionInputs({ adaptive: 'false' }).adaptive).toBe(false);
    expect(() => parseActionInputs({ adaptive: 'auto' })).toThrow(
      "input 'adaptive' must be true or false, got 'auto'",
    );
  });

  it('and pass-alpha are read by mode benchmark only', () => {
    expect(() => parseActionInputs({ mode: 'nightly', adaptive: 'false' })).toThrow(
      "input 'adaptive' (false) turns off the adaptive rounds of mode benchmark; mode nightly does not read it: remove it",
    );
    expect(() => parseActionInputs({ mode: 'calibrate', 'pass-alpha': '0.05' })).toThrow(
      "input 'pass-alpha' (0.05) shapes the adaptive rounds of mode benchmark; mode calibrate does not read it: remove it",
    );
  });
});

describe('mode benchmark: the rounds', () => {
  it("are fixed with adaptive 'false': the workloads' own, else 10", async () => {
    // At alpha 0.001 ten rounds of 100 cells cannot decide: the refusal names the rounds it would run.
    expect(await refusal({ adaptive: 'false', alpha: '0.001' })).toMatch(
      /select-only \(select-only@1, .*\): 10 rounds, .* each is >= alpha 0\.001/,
    );
  });

  it("are fixed by input 'rounds'", async () => {
    expect(await refusal({ rounds: '4' })).toMatch(
      /select-only \(select-only@1, .*\): 4 rounds, .* each is >= alpha 0\.05/,
    );
  });

  it("refuse adaptive 'false' with max-rounds, and pass-alpha with fixed rounds", async () => {
    expect(await refusal({ adaptive: 'false', 'max-rounds': '20' })).toBe(
      "UserError: input 'adaptive' false and inputs 'max-rounds'/'time-budget' both given: fixed rounds or adaptive ones, give one",
    );
    expect(await refusal({ rounds: '8', 'pass-alpha': '0.05' })).toBe(
      "UserError: input 'pass-alpha' shapes adaptive rounds, and the rounds here are fixed (input 'rounds' 8): remove it",
    );
  });
});
