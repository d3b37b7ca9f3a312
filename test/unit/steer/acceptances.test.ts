/**
 * Which acceptance records count (src/flows/publish/acceptances.ts): a record in the bot's own comment
 * counts only as far as the unedited `/pgperf accept` command it answers reaches, by a user who still has
 * write permission; a record quoted inside a fence (e.g. a workload value from a PR's results file) is
 * never one.
 */
import { describe, expect, it } from 'vitest';
import { readAcceptances, renderAcceptanceRecord } from '../../../src/flows/publish/acceptances.js';
import type { GitHubApi, IssueComment, RepoPermission } from '../../../src/github/api.js';
import { memoryLogger } from '../../../src/core/util/logger.js';
import { acceptanceOf } from '../../../src/core/compare/decision/policy.js';

const BOT = 'pgperf-bot';
const SHA = 'b'.repeat(40);
const AT = '2026-11-26T10:00:00Z';

/** The API as readAcceptances uses it: the bot's login, the PR's comments, permissions. */
function api(comments: IssueComment[], permissions: Record<string, RepoPermission> = {}): GitHubApi {
  return {
    viewerLogin: async () => BOT,
    listComments: async () => comments,
    permission: async (login: string) => permissions[login] ?? 'none',
  } as unknown as GitHubApi;
}

const command = (id: number, body: string, login = 'maintainer'): IssueComment => ({
  id,
  body,
  userLogin: login,
  createdAt: AT,
  updatedAt: AT,
});

const reply = (id: number, record: Parameters<typeof renderAcceptanceRecord>[0]): IssueComment => ({
  id,
  body: `> /pgperf accept ...\n\n✅ Accepted.\n\n${renderAcceptanceRecord(record)}`,
  userLogin: BOT,
});

const record = (cells: Array<{ workload: string; clients: number }>, reason = 'wins 30% at 64') => ({
  commandId: 1,
  by: 'maintainer',
  sha: SHA,
  reason,
  cells: cells.map((c) => ({ ...c, metric: 'tps', deltaPct: -3 })),
});

describe('readAcceptances', () => {
  it('counts a record within what its command named', async () => {
    const comments = [
      command(1, '/pgperf accept tpcb@64 wins 30% at 64'),
      reply(2, record([{ workload: 'tpcb', clients: 64 }])),
    ];
    const got = await readAcceptances(api(comments, { maintainer: 'write' }), 7, memoryLogger());
    expect(got).toEqual([
      {
        workload: 'tpcb',
        clients: 64,
        metric: 'tps',
        deltaPct: -3,
        sha: SHA,
        by: 'maintainer',
        reason: 'wins 30% at 64',
      },
    ]);
  });

  it.each([
    [
      'a cell of another client count',
      '/pgperf accept tpcb@64 wins 30% at 64',
      [{ workload: 'tpcb', clients: 1 }],
    ],
    [
      'a cell of another workload',
      '/pgperf accept tpcb wins 30% at 64',
      [{ workload: 'select-only', clients: 1 }],
    ],
  ])('ignores a record naming %s than its command did', async (_, text, cells) => {
    const logger = memoryLogger();
    const comments = [command(1, text), reply(2, record(cells))];
    expect(await readAcceptances(api(comments, { maintainer: 'write' }), 7, logger)).toEqual([]);
    expect(logger.lines.join('\n')).toMatch(/names cells its \/pgperf accept tpcb(@64)? did not/);
  });

  it('ignores a record inside a fenced block of the bot comment, and one by a user without write', async () => {
    const fenced: IssueComment = {
      id: 3,
      body: ['```sh', renderAcceptanceRecord(record([{ workload: 'tpcb', clients: 64 }])), '```'].join('\n'),
      userLogin: BOT,
    };
    const comments = [command(1, '/pgperf accept tpcb@64 wins 30% at 64'), fenced];
    expect(await readAcceptances(api(comments, { maintainer: 'write' }), 7, memoryLogger())).toEqual([]);
    const unfenced = [comments[0]!, reply(2, record([{ workload: 'tpcb', clients: 64 }]))];
    expect(await readAcceptances(api(unfenced, { maintainer: 'read' }), 7, memoryLogger())).toEqual([]);
  });
});

describe('acceptanceOf (the decision reads an acceptance)', () => {
  const given = {
    workload: 'tpcb',
    clients: 64,
    metric: 'tps',
    sha: SHA,
    deltaPct: -3,
    by: 'm',
    reason: 'r',
  };
  const cell = (deltaPct: number) => ({
    workload: 'tpcb',
    clients: 64,
    metric: 'tps',
    deltaPct,
    thresholdPct: 2,
  });
  it.each([
    ['the same head, the same delta', SHA, -3, 'valid'],
    ['the same head, worse by less than the threshold', SHA, -4.9, 'valid'],
    ['the same head, worse by more than the threshold', SHA, -5.1, 'worse'],
    ['another head commit', 'e'.repeat(40), -3, 'new-head'],
  ] as const)('%s: %s', (_, headSha, delta, state) => {
    expect(acceptanceOf(cell(delta), 'higher', { headSha, acceptances: [given] })?.state).toBe(state);
  });

  it('names no acceptance for a cell nobody accepted', () => {
    expect(
      acceptanceOf({ ...cell(-3), clients: 1 }, 'higher', { headSha: SHA, acceptances: [given] }),
    ).toBeUndefined();
  });
});
