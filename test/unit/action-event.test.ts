/**
 * The event the Action runs on, from the runner's environment: an event file that is not JSON is an error
 * naming GITHUB_EVENT_PATH's file; a pull-request event whose payload names no usable PR is refused naming
 * the event, the file and the missing fields, in every path that looks for the PR (the commits, the
 * benchmark's and the comment/consolidate modes' targets), instead of being taken for an event without a PR
 * ("no pull request to comment on (not a pull_request event ...)").
 */
import { describe, expect, it } from 'vitest';
import {
  chooseCommits,
  pullRequestOf,
  readContext,
  type ActionContext,
} from '../../src/adapters/action/context.js';
import { parseInputs } from '../../src/adapters/action/inputs.js';
import { benchmarkTarget, vouchedEventOf } from '../../src/adapters/action/trusted-target.js';
import { eventTarget } from '../../src/flows/publish/publish-target.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { UserError } from '../../src/core/util/errors.js';

const SHA = 'a'.repeat(40);
const env = (file: string, name = 'pull_request') => ({
  GITHUB_REPOSITORY: 'pg/postgres',
  GITHUB_EVENT_NAME: name,
  GITHUB_EVENT_PATH: file,
  GITHUB_SHA: SHA,
});

describe('the event file', () => {
  it('that is not JSON is refused naming GITHUB_EVENT_PATH and the file', async () => {
    const read = async () => 'not json{';
    const e = await readContext(env('/runner/_temp/_github_workflow/event.json'), read).catch((x) => x);
    expect(e).toBeInstanceOf(UserError);
    expect((e as UserError).message).toMatch(
      /^GITHUB_EVENT_PATH \/runner\/_temp\/_github_workflow\/event\.json: the event payload is not JSON \(.*\); expected the JSON file the runner writes$/,
    );
  });

  it('is remembered, to be named in later messages', async () => {
    const ctx = await readContext(env('/e.json'), async () => '{}');
    expect(ctx.eventPath).toBe('/e.json');
  });
});

describe('a pull_request event whose payload names no usable PR', () => {
  const inputs = parseInputs(
    (name) => ({ 'github-token': 't', 'base-bin-dir': '/b', 'head-bin-dir': '/h' })[name] ?? '',
  );
  const result = { source: { head: { sha: SHA } } } as unknown as RunResult;
  const ctx = (payload: Record<string, unknown>, eventName = 'pull_request'): ActionContext => ({
    eventName,
    payload,
    eventPath: '/runner/event.json',
    owner: 'pg',
    repo: 'postgres',
    sha: SHA,
    serverUrl: 'https://github.com',
    workspace: '/tmp',
  });
  const broken: Array<[string, Record<string, unknown>, RegExp]> = [
    [
      'no pull_request at all',
      {},
      /has no pull_request\.number, pull_request\.head\.sha, pull_request\.base\.sha;/,
    ],
    [
      'a pull_request without its number',
      { number: 7, pull_request: { head: { sha: SHA }, base: { sha: SHA } } },
      /has no pull_request\.number;/,
    ],
    [
      'a pull_request without the base sha',
      { pull_request: { number: 7, head: { sha: SHA }, base: {} } },
      /has no pull_request\.base\.sha;/,
    ],
  ];

  it.each(broken)(
    '%s: refused by every path that looks for the PR, naming the event and the file',
    async (_, payload, missing) => {
      const c = ctx(payload);
      const expected =
        /^the 'pull_request' event is about a pull request, but the event payload GITHUB_EVENT_PATH \/runner\/event\.json has no /;
      const attempts: Array<() => unknown> = [
        () => pullRequestOf(c),
        () => benchmarkTarget(c, result, undefined),
        () => chooseCommits(c, inputs, undefined),
        () => eventTarget(vouchedEventOf(c), undefined, undefined, 'mode comment'),
      ];
      for (const attempt of attempts) {
        const e = await Promise.resolve()
          .then(attempt)
          .then(
            () => undefined,
            (x: unknown) => x,
          );
        expect(e).toBeInstanceOf(UserError);
        expect((e as UserError).message).toMatch(expected);
        expect((e as UserError).message).toMatch(missing);
      }
    },
  );

  it('pull_request_target and a missing event file too', () => {
    expect(() => pullRequestOf(ctx({}, 'pull_request_target'))).toThrow(
      "the 'pull_request_target' event is about a pull request",
    );
    const { eventPath: _, ...noFile } = ctx({});
    expect(() => pullRequestOf(noFile)).toThrow('the event payload (GITHUB_EVENT_PATH is not set) has no');
  });

  it('a well-formed pull_request event is the PR; other events have none', () => {
    const pr = { number: 7, head: { sha: SHA, ref: 'x' }, base: { sha: 'b'.repeat(40), ref: 'master' } };
    expect(pullRequestOf(ctx({ pull_request: pr }))).toEqual(pr);
    expect(benchmarkTarget(ctx({ pull_request: pr }), result, undefined)).toMatchObject({
      prNumber: 7,
      basis: 'the pull_request event of PR #7',
    });
    expect(pullRequestOf(ctx({ ref: 'refs/heads/master' }, 'push'))).toBeUndefined();
    expect(benchmarkTarget(ctx({}, 'push'), result, undefined).prNumber).toBeUndefined();
  });
});
