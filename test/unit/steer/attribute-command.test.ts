/**
 * `/pgperf attribute <from>..<to> [workloads=a,b]` (docs/pr-commands.md#attribute-a-range): the grammar,
 * who may ask (the API's permission, as for every command), the refs checked as ref inputs are, the decision and mode command's outputs for the attribute job, and the reply with
 * the report (markdown with the text waterfall, under the comment limit).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePgperfCommand } from '../../../src/core/pgperf-command.js';
import { handlePrCommand } from '../../../src/flows/steer/pr-command.js';
import type { CommandDecision, CommentEvent } from '../../../src/flows/steer/pr-command-types.js';
import { commandDecision } from '../../../src/flows/steer/command-decision.js';
import { runCommandMode } from '../../../src/adapters/action/modes/command-mode.js';
import { runCommentMode } from '../../../src/adapters/action/modes/comment-mode.js';
import type { GitHubApi, RepoPermission } from '../../../src/github/api.js';
import { memoryLogger } from '../../../src/core/util/logger.js';
import { attributionReplyText } from '../../../src/core/report/attribution/attribution-reply.js';
import { runAttribution } from '../../../src/flows/attribute/attribution-flow.js';
import { actionContext } from '../../helpers/action-events.js';
import { parseActionInputs } from '../../helpers/action-inputs.js';
import { attributionFakes, attributionRequest } from '../../helpers/attribution-fakes.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'attribute-command-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const HEAD = '9f8e7d6c5b4a'.padEnd(40, '0');

/** The API calls a command makes, in memory: the commenter's permission, an open PR, the replies. */
function fakeApi(permission: RepoPermission, state: 'open' | 'closed' = 'open') {
  const replies: string[] = [];
  const api = {
    addReaction: async () => {},
    createComment: async (_n: number, body: string) => {
      replies.push(body);
      return { id: replies.length, body, user: { login: 'pgperf-bot' } };
    },
    permission: async () => permission,
    listComments: async () => [],
    viewerLogin: async () => 'pgperf-bot',
    pullRequest: async (number: number) => ({
      number,
      state,
      headSha: HEAD,
      headRef: 'feature',
      baseSha: 'b'.repeat(40),
      baseRef: 'master',
    }),
  } as unknown as GitHubApi;
  return { api, replies };
}

const event = (body: string): CommentEvent => ({
  action: 'created',
  prNumber: 7,
  commentId: 11,
  login: 'alice',
  body,
});

async function handle(body: string, permission: RepoPermission = 'write', state?: 'open' | 'closed') {
  const { api, replies } = fakeApi(permission, state);
  let decided: CommandDecision | undefined;
  await handlePrCommand(event(body), {
    api,
    logger: memoryLogger(),
    stickyId: 'default',
    workloads: {
      entries: ['select-only', 'workloads/tpcb.yml'],
      nameOf: async (e) => (e === 'select-only' ? e : 'tpcb-like'),
    },
    decided: (d) => {
      decided = d;
    },
  });
  return { decided, replies };
}

describe('/pgperf attribute: the grammar', () => {
  it.each([
    ['/pgperf attribute REL_17_0..REL_18_0', { kind: 'attribute', from: 'REL_17_0', to: 'REL_18_0' }],
    [
      '/pgperf attribute v1~3..master workloads=select-only',
      { kind: 'attribute', from: 'v1~3', to: 'master', workloads: ['select-only'] },
    ],
  ])('%s', (body, command) => {
    expect(parsePgperfCommand(body)).toEqual({ ok: true, command, text: body });
  });

  it.each([
    ['/pgperf attribute', "'attribute' needs a range <from>..<to> (e.g. REL_17_0..REL_18_0)"],
    [
      '/pgperf attribute REL_17_0',
      "'attribute' needs a range <from>..<to> (e.g. REL_17_0..REL_18_0), got 'REL_17_0'",
    ],
    ['/pgperf attribute a...b', /got 'a\.\.\.b'$/],
    ['/pgperf attribute a..', /got 'a\.\.'$/],
    ['/pgperf attribute ..b', /got '\.\.b'$/],
    ['/pgperf attribute a..b..c', /got 'a\.\.b\.\.c'$/],
    ['/pgperf attribute a..b clients=4', "unknown option 'clients=4' of 'attribute': expected workloads="],
    ['/pgperf attribute a..b workloads=x workloads=y', "option 'workloads' given twice"],
    ['/pgperf attribute a..b workloads=../x', /^workloads=: '\.\.\/x' is no workload name/],
  ])('%s is refused: %s', (body, problem) => {
    const parsed = parsePgperfCommand(body);
    expect(parsed?.ok).toBe(false);
    if (parsed?.ok === false) expect(parsed.problem).toMatch(problem);
  });
});

describe('/pgperf attribute: handled', () => {
  it('by a maintainer: the range and the workloads decided for the attribute job, and a reply says so', async () => {
    const { decided, replies } = await handle('/pgperf attribute REL_17_0..REL_18_0 workloads=tpcb-like');
    expect(decided).toEqual({
      command: 'attribute',
      prNumber: 7,
      from: 'REL_17_0',
      to: 'REL_18_0',
      workloads: ['workloads/tpcb.yml'],
    });
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatch(/^> \/pgperf attribute REL.*workloads=tpcb-like\n/);
    expect(replies[0]).toContain(
      '@alice: attributing `REL_17_0`..`REL_18_0` of this repository (`tpcb-like`): each commit that moved',
    );
    expect(replies[0]).toContain('The report follows as a reply when the attribute job ends.');
    expect(commandDecision(decided, 'regression').headline).toEqual({
      lead: 'Attribution requested',
      detail: 'PR #7: REL_17_0..REL_18_0, workloads/tpcb.yml; the attribute job replies with the report',
    });
  });

  it('refused to a commenter without write permission: nothing decided to run', async () => {
    for (const p of ['read', 'triage', 'none'] as const) {
      const { decided, replies } = await handle('/pgperf attribute REL_17_0..REL_18_0', p);
      expect(decided).toEqual({ command: 'refused' });
      expect(replies[0]).toContain(`and yours is ${p}`);
    }
    expect((await handle('/pgperf attribute a..b', 'write', 'closed')).decided).toEqual({
      command: 'refused',
    });
  });

  it('refuses refs a ref input would refuse, and workloads the workflow does not run', async () => {
    const bad = await handle('/pgperf attribute master..-fetch');
    expect(bad.decided).toEqual({ command: 'invalid' });
    expect(bad.replies[0]).toContain(
      '\'attribute\' <to> must be a branch, tag or commit sha (letters, digits, ".", "_", "/", "-", "~", "^"), got \'-fetch\'',
    );
    // A PR's own commits are refs like any other: the attribute job that builds them is read-only.
    expect((await handle(`/pgperf attribute master..${HEAD.slice(0, 12)}`)).decided?.command).toBe(
      'attribute',
    );
    const unknown = await handle('/pgperf attribute a..b workloads=nope');
    expect(unknown.decided).toEqual({ command: 'invalid' });
    expect(unknown.replies[0]).toContain(
      'unknown workload `nope`; this workflow runs `select-only`, `tpcb-like`.',
    );
  });

  it("mode command's outputs: what the attribute job reads", async () => {
    const outputs: Record<string, string> = {};
    const { api } = fakeApi('maintain');
    const payload = {
      action: 'created',
      issue: { number: 7, pull_request: {} },
      comment: { id: 11, body: '/pgperf attribute REL_17_0..REL_18_0', user: { login: 'alice' } },
    };
    await runCommandMode(
      parseActionInputs({ mode: 'command' }),
      actionContext('issue_comment', payload, dir),
      {
        logger: memoryLogger(),
        runner: { run: () => Promise.reject(new Error('no process')) },
        io: { setOutput: (k, v) => void (outputs[k] = v), writeSummary: async () => {} },
        api,
        cacheDir: path.join(dir, 'cache'),
        actionDir: new URL('../../../', import.meta.url).pathname,
      },
      path.join(dir, 'command'),
    );
    expect(outputs).toMatchObject({
      command: 'attribute',
      attribute: 'true',
      run: 'false',
      republish: 'false',
      'pr-number': '7',
      'attribute-from': 'REL_17_0',
      'attribute-to': 'REL_18_0',
      workloads: 'select-only',
    });
  });
});

describe('the reply with the report', () => {
  it('is the markdown report with the text waterfall, cut under the limit with its fences closed', async () => {
    const f = attributionFakes(12, { 3: 600, 5: 400, 8: 900, 10: -400 });
    const report = await runAttribution(attributionRequest(path.join(dir, 'c'), path.join(dir, 'o')), f.deps);
    const full = attributionReplyText(report, { runUrl: 'https://github.com/pg/postgres/actions/runs/5' });
    expect(full).toContain('## pgperf attribute: `0000aaa` .. `0012aaa`');
    expect(full).toContain('```\n  from       30,000  |');
    expect(full).toContain('| `work_3` | 0 | 600 | +600 |');
    expect(full).not.toContain('waterfall.svg');
    const at = full.indexOf('  0005aaa      +400');
    const cut = attributionReplyText(report, { maxLength: at + 300 });
    expect(cut.length).toBeLessThanOrEqual(at + 300);
    expect(cut).toContain('… the report is cut here (a comment holds at most');
    expect(cut.split('\n').filter((l) => l.startsWith('```')).length % 2).toBe(0);
  });

  it("is posted by mode comment from the attribute job's artifact, on the PR the comment event is on", async () => {
    const out = path.join(dir, 'posted');
    const f = attributionFakes(12, { 3: 600, 5: 400 });
    await runAttribution(attributionRequest(path.join(dir, 'c'), out), f.deps);
    const { api, replies } = fakeApi('write');
    const outputs: Record<string, string> = {};
    const deps = {
      logger: memoryLogger(),
      runner: { run: () => Promise.reject(new Error('no process')) },
      io: { setOutput: (k: string, v: string) => void (outputs[k] = v), writeSummary: async () => {} },
      api,
      cacheDir: path.join(dir, 'cache'),
      actionDir: new URL('../../../', import.meta.url).pathname,
    };
    const payload = { action: 'created', issue: { number: 7, pull_request: {} }, comment: { id: 12 } };
    const ctx = actionContext('issue_comment', payload, dir);
    const outcome = await runCommentMode(parseActionInputs({ mode: 'comment' }), ctx, deps, out);
    expect(replies).toHaveLength(1);
    expect(replies[0]).toContain('## pgperf attribute: [`0000aaa`]');
    expect(replies[0]).toContain('| `work_3` | 0 | 600 | +600 |');
    expect(outputs.culprits).toBe(
      [3, 5].map((i) => `${String(i).padStart(4, '0')}${'a'.repeat(36)}`).join('\n'),
    );
    expect(outcome.decision.outcome).toBe('passed');

    // Not on a PR comment: refused, nothing posted.
    await expect(
      runCommentMode(
        parseActionInputs({ mode: 'comment' }),
        actionContext('workflow_dispatch', {}, dir),
        deps,
        out,
      ),
    ).rejects.toThrow(
      "only as the reply to a /pgperf attribute comment on a pull request (an issue_comment event), got 'workflow_dispatch'",
    );
    // A document that is not what pgperf writes: refused naming the field, nothing posted.
    const forged = path.join(dir, 'forged');
    await mkdir(forged, { recursive: true });
    const doc = JSON.parse(await readFile(path.join(out, 'attribution.json'), 'utf8'));
    doc.culprits[0].changes[0].changePerTx = '<img src=x>';
    await writeFile(path.join(forged, 'attribution.json'), JSON.stringify(doc));
    await expect(runCommentMode(parseActionInputs({ mode: 'comment' }), ctx, deps, forged)).rejects.toThrow(
      /forged\/attribution\.json is not an attribution\.json pgperf writes: culprits\.0\.changes\.0\.changePerTx: /,
    );
    expect(replies).toHaveLength(1);
  });
});
