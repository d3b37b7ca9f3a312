/**
 * Replies to commenters without permission are limited (src/flows/steer/refusal-replies.ts): at most one
 * per PR per hour, found by the bot's own hidden refusal marker and its created_at; every other command of
 * theirs gets only the 👀 reaction, so anyone who can comment cannot make the bot post without limit. Mode
 * command runs through runAction against the fake GitHub API on 127.0.0.1 (octokit, pagination and all),
 * with the issue_comment payloads GitHub writes; the times are the comments' created_at, set per case.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionContext } from '../../../src/adapters/action/context.js';
import { REFUSAL_MARKER } from '../../../src/flows/steer/refusal-replies.js';
import { runAction } from '../../../src/adapters/action/modes/run-action.js';
import { memoryLogger } from '../../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../../src/machine/os/process.js';
import { parseActionInputs } from '../../helpers/action-inputs.js';
import { useFakeGitHub } from '../../helpers/fake-github-per-test.js';

const root = new URL('../../../', import.meta.url).pathname;
const PR = 7;
const BOT = 'pgperf-bot';
const fake = useFakeGitHub();

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-refusal-replies-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** 10:00 UTC plus `minutes`, as GitHub writes created_at. */
const at = (minutes: number) => new Date(Date.UTC(2026, 2, 1, 10, minutes)).toISOString();

function collaborators(): void {
  for (const pr of [PR, PR + 1]) fake.gh.pullHeads.set(pr, 'b'.repeat(40));
  fake.gh.permissions.set('maintainer', 'maintain');
  fake.gh.permissions.set('reader', 'read');
  fake.gh.permissions.set('triager', 'triage');
}

interface Command {
  id: number;
  ctx: ActionContext;
  /** When GitHub recorded the comment. */
  createdAt: string;
}

/** A comment written on the PR at `createdAt`, and the issue_comment event GitHub sends for it. */
function comment(login: string, body: string, createdAt: string, pr = PR): Command {
  const c = fake.gh.addComment(pr, login, body);
  c.created_at = c.updated_at = createdAt;
  return {
    id: c.id,
    createdAt,
    ctx: {
      eventName: 'issue_comment',
      payload: {
        action: 'created',
        issue: { number: pr, pull_request: { url: `https://api.github.com/repos/pg/postgres/pulls/${pr}` } },
        comment: { id: c.id, body, user: { login }, created_at: createdAt },
      },
      owner: 'pg',
      repo: 'postgres',
      sha: 'c'.repeat(40),
      serverUrl: 'https://github.com',
      workspace: tmp,
    },
  };
}

/** Mode command on the command's event; the bot's comments it posts are stamped 5 s after the command. */
async function handle(command: Command, pr = PR) {
  const outputs: Record<string, string> = {};
  const logger = memoryLogger();
  const before = new Set((fake.gh.comments.get(pr) ?? []).map((c) => c.id));
  await runAction(
    parseActionInputs({ mode: 'command', comment: 'false', 'commit-status': 'false' }),
    command.ctx,
    {
      logger,
      runner: nodeProcessRunner,
      io: { setOutput: (k, v) => (outputs[k] = v), writeSummary: async () => {} },
      api: fake.api(),
      cacheDir: path.join(tmp, 'cache'),
      actionDir: root,
    },
  );
  const posted = (fake.gh.comments.get(pr) ?? []).filter((c) => !before.has(c.id));
  const stamp = new Date(Date.parse(command.createdAt) + 5000).toISOString();
  for (const c of posted) c.created_at = c.updated_at = stamp;
  const reacted = fake.gh.reactions.filter((r) => r.commentId === command.id).map((r) => r.content);
  return { outputs, log: logger.lines.join('\n'), posted, reacted };
}

/** The bot's replies to commenters without permission on a PR. */
const refusals = (pr = PR) =>
  (fake.gh.comments.get(pr) ?? []).filter((c) => c.user.login === BOT && c.body.includes(REFUSAL_MARKER));

describe('replies to commenters without permission', () => {
  it('at most one per PR per hour: later commands get only the reaction, and one more after the hour', async () => {
    collaborators();
    const first = await handle(comment('reader', '/pgperf run', at(0)));
    expect(first.outputs).toMatchObject({ command: 'refused', run: 'false' });
    expect(first.reacted).toEqual(['eyes']);
    expect(first.posted).toHaveLength(1);
    expect(first.posted[0]!.body).toContain('@reader: sorry, pgperf runs and acceptances need write');
    expect(first.posted[0]!.body).toContain(REFUSAL_MARKER);

    // Ten more within the hour, from the same reader and from others without permission: reaction only.
    for (const [i, login] of ['reader', 'triager', 'stranger', 'reader'].entries()) {
      const later = await handle(
        comment(login, `/pgperf ${i % 2 ? 'help' : 'run rounds=5'}`, at(5 + i * 10)),
      );
      expect(later.outputs).toMatchObject({ command: 'refused', run: 'false' });
      expect(later.reacted).toEqual(['eyes']);
      expect(later.posted).toEqual([]);
      expect(later.log).toContain(
        `no reply (only the reaction): PR #${PR} had a reply to a commenter without permission within the hour (comment ${first.posted[0]!.id}): at most one per PR per hour`,
      );
    }
    expect(refusals()).toHaveLength(1);

    // An hour after the reply (10:00:05), the next command gets one again.
    const justBefore = await handle(comment('stranger', '/pgperf run', at(60)));
    expect(justBefore.posted).toEqual([]);
    const after = await handle(comment('stranger', '/pgperf run', at(61)));
    expect(after.posted).toHaveLength(1);
    expect(after.posted[0]!.body).toContain('@stranger: sorry');
    expect(refusals()).toHaveLength(2);
  });

  it('counts per PR, and never limits the replies to permitted users', async () => {
    collaborators();
    await handle(comment('reader', '/pgperf run', at(0)));
    const other = await handle(comment('reader', '/pgperf run', at(1), PR + 1), PR + 1);
    expect(other.posted).toHaveLength(1);
    const help = await handle(comment('maintainer', '/pgperf help', at(2)));
    expect(help.outputs.command).toBe('help');
    expect(help.posted).toHaveLength(1);
    expect(help.posted[0]!.body).toContain('@maintainer: pgperf understands:');
  });

  it('a burst handled at once replies once: each job sees the same earlier commands', async () => {
    collaborators();
    // Three commands posted before any of their jobs ran; the last job runs first and sees no reply yet.
    const burst = [0, 1, 2].map((s) =>
      comment('reader', '/pgperf run', at(0).replace(':00.000Z', `:0${s}.000Z`)),
    );
    const third = await handle(burst[2]!);
    expect(third.posted).toEqual([]);
    expect(third.reacted).toEqual(['eyes']);
    expect(third.log).toContain(`the reply to @reader's earlier command ${burst[0]!.id}`);
    expect((await handle(burst[1]!)).posted).toEqual([]);
    expect((await handle(burst[0]!)).posted).toHaveLength(1);
    expect(refusals()).toHaveLength(1);
  });

  it("a commenter's earlier command that got no reply does not hold back the next hour's", async () => {
    collaborators();
    await handle(comment('reader', '/pgperf run', at(0)));
    // Inside the hour: reaction only. After the first reply's hour: answered, although the command at 0:50
    // is less than an hour old (it got no reply).
    expect((await handle(comment('reader', '/pgperf run', at(50)))).posted).toEqual([]);
    expect((await handle(comment('reader', '/pgperf run', at(70)))).posted).toHaveLength(1);
  });

  it('posts nothing when the earlier replies cannot be read', async () => {
    collaborators();
    fake.gh.refuse.push({ method: 'GET', pathPattern: /\/issues\/\d+\/comments$/, status: 403 });
    const ran = await handle(comment('reader', '/pgperf run', at(0)));
    expect(ran.outputs.command).toBe('refused');
    expect(ran.reacted).toEqual(['eyes']);
    expect(ran.posted).toEqual([]);
    expect(ran.log).toContain(
      "no reply (only the reaction): the PR's comments could not be read to limit the replies",
    );
  });

  it("counts only the bot's own replies: a pasted marker silences nothing", async () => {
    collaborators();
    fake.gh.addComment(PR, 'triager', `quiet please ${REFUSAL_MARKER}`).created_at = at(0);
    const ran = await handle(comment('reader', '/pgperf run', at(1)));
    expect(ran.posted).toHaveLength(1);
  });
});
