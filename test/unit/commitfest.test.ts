/**
 * Commitfest entries as heads: `pgperf run --cf ID` and the Action's `commitfest-entry` build cfbot's branch
 * cf/<id> against its merge-base with master (or --base / base-ref), record the entry in the results
 * (`source.commitfest`, accepted by the results schema) and name it in the terminal and markdown reports.
 * The Action is driven through runAction with a schedule event, its build stopped where it would start:
 * the request it was about to build is what is checked. The end-to-end run on a real PostgreSQL repository
 * is test/integration/commitfest.int.test.ts.
 */
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { RUN_FLAG_NAMES, armOptionsOf, type BuildArmFlags } from '../../src/adapters/cli/commands/run.js';
import { buildArmRefs } from '../../src/flows/compare/options/arm-source.js';
import type { ArmFlag } from '../../src/adapters/cli/flag-parsers.js';
import { runAction } from '../../src/adapters/action/modes/run-action.js';
import type { ComparisonRequest } from '../../src/postgres/builds/build-pair.js';
import { CFBOT_REPO, commitfestEntryOf } from '../../src/postgres/builds/commitfest.js';
import { resultsSchema } from '../../src/core/results/results-schema.js';
import { compareRun } from '../../src/core/compare/analysis/compare-run.js';
import { decideRun } from '../../src/flows/compare/pipeline/decide-run.js';
import { renderComparisonText } from '../../src/core/report/terminal/comparison-text.js';
import { renderMarkdownReport } from '../../src/core/report/markdown/markdown.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { syntheticRun } from '../../testkit/synthetic-run.js';
import { actionContext } from '../helpers/action-events.js';
import { parseActionInputs } from '../helpers/action-inputs.js';

/** The run flags with nothing built but what `extra` says (commander's defaults for the lists). */
const NOTHING = { basePatch: [], headPatch: [], mergeBase: false, buildOption: [] };
const flags = (extra: Partial<BuildArmFlags> & { arm?: ArmFlag[] }) => ({ ...NOTHING, ...extra });

describe('pgperf run --cf', () => {
  it('builds cf/<id> against master, or against the --base given', () => {
    expect(buildArmRefs(armOptionsOf(flags({ cf: '4711' })), RUN_FLAG_NAMES)).toEqual({
      base: 'master',
      head: 'cf/4711',
      commitfest: { id: 4711, branch: 'cf/4711' },
    });
    expect(
      buildArmRefs(armOptionsOf(flags({ cf: '4711', base: 'REL_18_STABLE' })), RUN_FLAG_NAMES),
    ).toMatchObject({
      base: 'REL_18_STABLE',
      head: 'cf/4711',
    });
  });

  it.each([
    [
      { cf: '4711', head: 'feature' },
      "--cf 4711 and --head feature both given: with --cf, head is the entry's branch cf/4711",
    ],
    [
      { cf: 'cf/4711' },
      "--cf must be a commitfest entry id (a positive integer, as in https://commitfest.postgresql.org/patch/4711/), got 'cf/4711'",
    ],
    [{ cf: '0' }, "got '0'"],
    [{ cf: '47 11' }, "got '47 11'"],
    [{ cf: '4711', arm: [{ label: 'x', binDir: '/b' }] }, '--arm and --base/--head both given'],
  ])('refuses %j', (extra, message) => {
    expect(() => buildArmRefs(armOptionsOf(flags(extra)), RUN_FLAG_NAMES)).toThrow(message);
  });

  it('an entry id names the flag or input that gave it', () => {
    expect(commitfestEntryOf(' 52 ', "input 'commitfest-entry'")).toEqual({ id: 52, branch: 'cf/52' });
    expect(() => commitfestEntryOf('x', "input 'commitfest-entry'")).toThrow(
      /^input 'commitfest-entry' must be a commitfest entry id/,
    );
  });
});

describe("the Action's commitfest-entry", () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'pgperf-cf-action-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const ctx = actionContext('schedule', { schedule: '17 */6 * * *' }, work, { repo: 'perf' });

  /** runAction in mode benchmark with `inputs`, its build stopped: the request it was given. */
  async function requested(inputs: Record<string, string>): Promise<ComparisonRequest | undefined> {
    let request: ComparisonRequest | undefined;
    const error = await runAction(
      parseActionInputs({ comment: 'false', 'commit-status': 'false', 'results-dir': 'out', ...inputs }),
      ctx,
      {
        logger: memoryLogger(),
        runner: nodeProcessRunner,
        io: { setOutput: () => {}, writeSummary: async () => {} },
        cacheDir: path.join(work, 'cache'),
        actionDir: new URL('../../', import.meta.url).pathname,
        build: (req) => {
          request = req;
          return Promise.reject(new Error('stopped before the build'));
        },
      },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(String(error)).toMatch(/stopped before the build/);
    return request;
  }

  it("on a schedule, builds cf/<id> of cfbot's mirror against its merge-base with master", async () => {
    expect(await requested({ 'commitfest-entry': '4711' })).toMatchObject({
      repo: { url: CFBOT_REPO },
      baseRef: 'master',
      headRef: 'cf/4711',
      mergeBase: true,
      headPatches: [],
    });
  });

  it('base-ref and repo are honoured', async () => {
    expect(
      await requested({ 'commitfest-entry': '52', 'base-ref': 'REL_18_STABLE', repo: '/srv/pg.git' }),
    ).toMatchObject({
      repo: { url: 'file:///srv/pg.git', local: true },
      baseRef: 'REL_18_STABLE',
      headRef: 'cf/52',
      mergeBase: true,
    });
  });

  it.each([
    [
      { 'head-ref': 'x' },
      "input 'commitfest-entry' (4711) makes head the branch cf/4711, and base its merge-base with 'base-ref' (default master): remove 'head-ref'",
    ],
    [
      { mode: 'calibrate', 'head-bin-dir': '/x' },
      "input 'commitfest-entry' (4711) builds head in mode benchmark; mode calibrate does not read it: remove it",
    ],
  ])('refuses %j', (extra, message) => {
    expect(() => parseActionInputs({ 'commitfest-entry': '4711', ...extra })).toThrow(message);
  });

  it('refuses an id that is not one', () => {
    expect(() => parseActionInputs({ 'commitfest-entry': 'cf/4711' })).toThrow(
      "input 'commitfest-entry' must be a commitfest entry id",
    );
  });
});

describe('the entry in the results and the reports', () => {
  const result = {
    ...syntheticRun({ seed: 3, rounds: 6, workloads: { 'select-only': [1] } }),
    source: { commitfest: { id: 4711, branch: 'cf/4711' } },
  };

  it('the results schema takes source.commitfest, and refuses a malformed one', () => {
    expect(resultsSchema.safeParse(result).success).toBe(true);
    const bad = { ...result, source: { commitfest: { id: 'cf/4711', branch: 'cf/4711' } } };
    expect(resultsSchema.safeParse(bad).success).toBe(false);
  });

  it('the terminal and the markdown compared lines name the entry', () => {
    const c = compareRun(result);
    const decision = decideRun(result, c);
    const text = renderComparisonText(c, decision, undefined, [], [], result.source);
    expect(text.split('\n')[1]).toMatch(
      /^compared: 'head', commitfest entry 4711 \(cf\/4711\), vs base 'base' \(/,
    );
    expect(renderComparisonText(c, decision)).not.toMatch(/commitfest/);
    const markdown = renderMarkdownReport({ result, comparison: c, decision, commentId: 'cf' });
    expect(markdown).toMatch(/ · head \/opt\/head\/bin, commitfest entry 4711 \(cf\/4711\), vs base /);
  });
});
