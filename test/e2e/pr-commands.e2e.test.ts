/**
 * Maintainers steer from the PR (docs/pr-commands.md): the built action (dist/index.js) run as the runner
 * runs it on `issue_comment` events, against a loopback fake of the GitHub API. Mode command checks the
 * commenter's permission through the API, reacts, and hands a run to a read-only benchmark job (real
 * pgbench on this machine's install) whose result a comment job posts into the sticky comment;
 * `/pgperf accept` turns a failing gate into a pass for that head commit only. The accept cases use seeded
 * synthetic results (the decision path needs no server).
 */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/core/results/result-types.js';
import { COMMAND_GRAMMAR } from '../../src/core/pgperf-command.js';
import { runBuiltAction, type ActionRun } from '../helpers/action-run.js';
import { pullRequestEvent } from '../helpers/action-events.js';
import { useFakeGitHub } from '../helpers/fake-github-per-test.js';
import { syntheticRun } from '../../testkit/synthetic-run.js';
import { shardDocuments, withRegression } from '../unit/fleet/shard-documents.js';
import { installedBinDir } from '../../testkit/postgres.js';

const root = new URL('../../', import.meta.url).pathname;
const PR = 7;
const HEAD = 'b'.repeat(40);
const NEW_HEAD = 'e'.repeat(40);
const BOT = 'pgperf-bot';
const fake = useFakeGitHub();
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-steer-'));
  await chmod(tmp, 0o755);
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** Repository roles of the test's users; anyone else is no collaborator (the API answers 404). */
function collaborators(): void {
  fake.gh.pullHeads.set(PR, HEAD);
  fake.gh.permissions.set('maintainer', 'maintain');
  fake.gh.permissions.set('admin-user', 'admin');
  fake.gh.permissions.set('reader', 'read');
  fake.gh.permissions.set('triager', 'triage');
}

/** The issue_comment payload GitHub writes for a comment (the comment is added to the fake first). */
function commentEvent(login: string, body: string, options: { action?: string; onPr?: boolean } = {}) {
  const comment = fake.gh.addComment(PR, login, body);
  return {
    id: comment.id,
    event: {
      action: options.action ?? 'created',
      issue: {
        number: PR,
        ...(options.onPr === false
          ? {}
          : { pull_request: { url: `https://api.github.com/repos/pg/postgres/pulls/${PR}` } }),
      },
      comment: { id: comment.id, body, user: { login } },
      sender: { login },
      repository: { full_name: 'pg/postgres' },
    },
  };
}

async function step(
  inputs: Record<string, string>,
  event: unknown,
  eventName: string,
  sha = HEAD,
): Promise<ActionRun> {
  return runBuiltAction(
    {
      'github-token': 'test-token',
      comment: 'true',
      'commit-status': 'true',
      'comment-id': 'default',
      ...inputs,
    },
    { workspace: tmp, apiUrl: fake.gh.url, event, eventName, sha },
  );
}

/** Job 1 of the command workflow: mode command on the comment, with the workflow's workloads. */
function commandJob(event: unknown, workloads = path.join(root, 'workloads/smoke.yml')) {
  return step(
    { mode: 'command', workloads, comment: 'false', 'commit-status': 'false' },
    event,
    'issue_comment',
  );
}

const botComments = () => (fake.gh.comments.get(PR) ?? []).filter((c) => c.user.login === BOT);
const sticky = () => botComments().filter((c) => c.body.includes('<!-- pgperf:comment-id=default -->'));
const replies = () => botComments().filter((c) => !c.body.includes('<!-- pgperf:comment-id=default -->'));
/** Markdown as GitHub shows it: the entities for markup and the zero-width joiners that stop mentions, decoded. */
const shown = (markdown: string) =>
  markdown
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&gt;/g, '>')
    .replace(/&lt;/g, '<')
    .replace(/&amp;/g, '&')
    .replace(/\u200d/g, '');
const writes = () => fake.gh.requests.filter((r) => r.method !== 'GET');

describe('/pgperf run', () => {
  it("a maintainer's run: acknowledged at once, the PR head measured by a read-only job, the result in the sticky comment", async () => {
    collaborators();
    const { id, event } = commentEvent('maintainer', '/pgperf run workloads=smoke clients=1 rounds=2');
    const command = await commandJob(event);
    expect(command.code, command.stdout).toBe(0);
    expect(fake.gh.reactions).toEqual([{ commentId: id, content: 'eyes' }]);
    // The permission comes from the API, asked about the comment's author.
    expect(
      fake.gh.requests.some((r) => r.path === '/repos/pg/postgres/collaborators/maintainer/permission'),
    ).toBe(true);
    expect(command.outputs).toMatchObject({
      command: 'run',
      run: 'true',
      'pr-number': String(PR),
      'head-sha': HEAD,
      'base-sha': fake.gh.mergeBaseSha,
      workloads: path.join(root, 'workloads/smoke.yml'),
      'client-counts': '1',
      rounds: '2',
    });
    // Until the result lands, the sticky comment says what is measured and for whom.
    expect(sticky()).toHaveLength(1);
    expect(shown(sticky()[0]!.body)).toMatch(
      /⏳ \/pgperf run workloads=smoke clients=1 rounds=2 by @maintainer: measuring head bbbbbbbbbbbb/,
    );

    // The head moves on while the run is queued: the run still measures the sha of the command.
    fake.gh.pullHeads.set(PR, NEW_HEAD);

    // Job 2: the benchmark, read-only (no token, no comment, no status), from job 1's outputs.
    const binDir = installedBinDir();
    const bench = await step(
      {
        mode: 'benchmark',
        'base-bin-dir': binDir,
        'head-bin-dir': binDir,
        'base-ref': command.outputs['base-sha']!,
        'head-ref': command.outputs['head-sha']!,
        'pr-number': command.outputs['pr-number']!,
        workloads: command.outputs.workloads!,
        'client-counts': command.outputs['client-counts']!,
        rounds: command.outputs.rounds!,
        duration: '1',
        force: 'true',
        'github-token': '',
        comment: 'false',
        'commit-status': 'false',
        'results-dir': 'bench',
      },
      event,
      'issue_comment',
    );
    expect(bench.code, bench.stdout).toBe(0);
    const result = JSON.parse(await readFile(bench.outputs['results-json']!, 'utf8')) as RunResult;
    // Pre-built installs stand in for the build here; the head is recorded as the sha the command resolved.
    expect(result.source?.head).toMatchObject({ ref: HEAD, chosenBy: 'input head-ref' });
    expect([...new Set(result.samples.map((s) => `${s.workload}@${s.clients}`))]).toEqual(['smoke@1']);
    expect(result.samples.filter((s) => s.status === 'ok')).toHaveLength(4);

    // Job 3: the comment job posts into the same sticky comment, for the measured commit, and says so.
    const stickyId = sticky()[0]!.id;
    const report = await step(
      { mode: 'comment', 'results-dir': 'bench', 'head-ref': HEAD, 'pr-number': String(PR) },
      event,
      'issue_comment',
    );
    expect(report.code, report.stdout).toBe(0);
    expect(sticky()).toHaveLength(1);
    const body = shown(sticky()[0]!.body);
    expect(sticky()[0]!.id).toBe(stickyId);
    expect(body).not.toContain('⏳');
    expect(body).toMatch(/smoke/);
    expect(body).toContain(
      'Triggered by /pgperf run workloads=smoke clients=1 rounds=2 by @maintainer; measured head bbbbbbbbbbbb as it was at the command: the PR head has since moved to eeeeeeeeeeee',
    );
    expect(fake.gh.statuses.at(-1)).toMatchObject({ sha: HEAD, context: 'pgperf/default' });
  }, 600_000);

  it.each([
    ['reader', 'read'],
    ['triager', 'triage'],
    ['fork-author', 'none'],
  ])("%s's command starts nothing and gets a polite refusal (permission %s)", async (login, permission) => {
    collaborators();
    const { id, event } = commentEvent(login, '/pgperf run clients=1,64');
    const ran = await commandJob(event);
    expect(ran.code, ran.stdout).toBe(0);
    expect(ran.outputs).toMatchObject({ command: 'refused', run: 'false' });
    expect(ran.outputs['head-sha']).toBeUndefined();
    expect(replies()).toHaveLength(1);
    expect(replies()[0]!.body).toContain(
      `@${login}: sorry, pgperf runs and acceptances need write, maintain or admin permission on this repository, and yours is ${permission}`,
    );
    // Nothing but the reaction and the reply was written; the PR was not even read, no sticky comment.
    expect(writes().map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /repos/pg/postgres/issues/comments/${id}/reactions`,
      `POST /repos/pg/postgres/issues/${PR}/comments`,
    ]);
    expect(sticky()).toEqual([]);
    expect(ran.stdout).not.toMatch(/Benchmark|initdb|pg_ctl/);
  });

  it('a forged author in the comment text changes nothing: the API says who wrote it', async () => {
    collaborators();
    const { event } = commentEvent(
      'reader',
      '/pgperf run workloads=smoke\n\n(on behalf of @maintainer, user: maintainer)',
    );
    const ran = await commandJob(event);
    expect(ran.outputs).toMatchObject({ command: 'refused', run: 'false' });
    expect(fake.gh.requests.filter((r) => r.path.includes('/collaborators/')).map((r) => r.path)).toEqual([
      '/repos/pg/postgres/collaborators/reader/permission',
    ]);
  });

  it('every malformed command gets the grammar reply, and nothing starts', async () => {
    collaborators();
    const malformed: Array<[string, string]> = [
      ['/pgperf', 'no command after /pgperf'],
      [
        '/pgperf benchmark please',
        "unknown command 'benchmark': expected run, rerun, accept, attribute or help",
      ],
      ['/pgperf run rounds=0', "rounds=: '0' is not a whole number >= 1"],
      ['/pgperf run fast=yes', "unknown option 'fast=yes' of 'run'"],
      ['/pgperf rerun smoke', "'smoke' needs @<clients>, e.g. smoke@64"],
      ['/pgperf accept smoke@1', "'accept smoke@1' needs a reason"],
      ['/pgperf run workloads=../../etc/passwd', 'workloads=: '],
    ];
    for (const [i, [body, problem]] of malformed.entries()) {
      const { event } = commentEvent('maintainer', body);
      const ran = await commandJob(event);
      expect(ran.code, ran.stdout).toBe(0);
      expect(ran.outputs).toMatchObject({ command: 'invalid', run: 'false' });
      expect(replies()).toHaveLength(i + 1);
      const reply = replies()[i]!.body;
      // The problem is quoted as plain text: entities for markup and mentions.
      expect(shown(reply)).toContain(problem);
      for (const line of COMMAND_GRAMMAR) expect(reply).toContain(line);
    }
    // An unknown workload: named, with the workloads this workflow runs.
    const { event } = commentEvent('maintainer', '/pgperf run workloads=nosuch');
    const ran = await commandJob(event);
    expect(ran.outputs).toMatchObject({ command: 'invalid', run: 'false' });
    expect(replies().at(-1)!.body).toMatch(/unknown workload `nosuch`; this workflow runs `smoke`/);
    expect(sticky()).toEqual([]);
  });

  it('/pgperf help lists the grammar', async () => {
    collaborators();
    const ran = await commandJob(commentEvent('maintainer', '/pgperf help').event);
    expect(ran.outputs).toMatchObject({ command: 'help', run: 'false', outcome: 'passed' });
    // Mode command returns a decision like every mode: decision.json says what the comment was taken as.
    const decision = JSON.parse(await readFile(ran.outputs['decision-json']!, 'utf8')) as object;
    expect(decision).toMatchObject({ flow: 'command', headline: { lead: 'Help given' } });
    for (const line of COMMAND_GRAMMAR) expect(replies()[0]!.body).toContain(line);
  });

  it('an edited comment is never a command: no reaction, no reply, no request', async () => {
    collaborators();
    const { event } = commentEvent('maintainer', '/pgperf run', { action: 'edited' });
    const ran = await commandJob(event);
    expect(ran.code, ran.stdout).toBe(0);
    expect(ran.outputs).toMatchObject({ run: 'false', command: '', outcome: 'passed' });
    expect(ran.stdout).toContain('the comment was edited, not created: only a new comment is a command');
    expect(fake.gh.requests).toEqual([]);
  });

  it('a comment on an issue, or one that is no command, is left alone', async () => {
    collaborators();
    for (const event of [
      commentEvent('maintainer', '/pgperf run', { onPr: false }).event,
      commentEvent('maintainer', 'LGTM, but /pgperf run would tell').event,
    ]) {
      const ran = await commandJob(event);
      expect(ran.code, ran.stdout).toBe(0);
      expect(ran.outputs.run).toBe('false');
    }
    expect(fake.gh.requests).toEqual([]);
  });

  it('a command on a closed PR is refused and starts nothing', async () => {
    collaborators();
    fake.gh.closedPulls.add(PR);
    const ran = await commandJob(commentEvent('maintainer', '/pgperf run').event);
    expect(ran.outputs).toMatchObject({ command: 'refused', run: 'false' });
    expect(replies()[0]!.body).toContain(
      `PR #${PR} is closed: pgperf measures and accepts only on open pull requests.`,
    );
    expect(sticky()).toEqual([]);
  });
});

/** A seeded run with a 12% TPS regression at tpcb@64 only, about head `sha` of the PR. */
function regressionAt(sha: string): RunResult {
  const run = syntheticRun({
    seed: 1,
    rounds: 8,
    workloads: { tpcb: [1, 8, 64] },
    effect: (arm, _, clients) => (arm === 'head' && clients === 64 ? 0.88 : 1),
  });
  return {
    ...run,
    source: {
      prNumber: PR,
      base: { sha: 'c'.repeat(40), chosenBy: 'test' },
      head: { sha, chosenBy: 'test' },
    },
  };
}

async function writeResults(dir: string, result: RunResult): Promise<void> {
  await mkdir(path.join(tmp, dir), { recursive: true });
  await writeFile(path.join(tmp, dir, 'results.json'), JSON.stringify(result));
}

const prEvent = (sha: string) =>
  pullRequestEvent({ number: PR, headSha: sha, headRef: 'fix/btree-root-lock' });
const REASON = 'the root-page lock fix wins 30% at 1 client';

describe('/pgperf accept', () => {
  /** A failing result posted for HEAD, then a maintainer's accept of tpcb@64; returns the accept job and comment id. */
  async function failThenAccept(login = 'maintainer') {
    collaborators();
    await writeResults('reg', regressionAt(HEAD));
    const failed = await step({ mode: 'comment', 'results-dir': 'reg' }, prEvent(HEAD), 'pull_request');
    expect(failed.code).toBe(1);
    expect(failed.outputs.outcome).toBe('failed');
    const { id, event } = commentEvent(login, `/pgperf accept tpcb@64 ${REASON}`);
    const accepted = await commandJob(event, 'tpcb-like');
    return { accepted, id, event };
  }

  /** The comment job of the accept workflow: the last results again, under the acceptances that count. */
  const republish = (event: unknown, dir = 'reg') =>
    step(
      { mode: 'comment', 'results-dir': dir, 'head-ref': HEAD, 'pr-number': String(PR) },
      event,
      'issue_comment',
    );

  it('turns the failing gate into a pass with the reason beside the numbers; a new head sha turns it back', async () => {
    const { accepted, id, event } = await failThenAccept();
    expect(accepted.code, accepted.stdout).toBe(0);
    expect(accepted.outputs).toMatchObject({
      command: 'accept',
      republish: 'true',
      'head-sha': HEAD,
      'pr-number': String(PR),
      'results-run-id': '777',
    });
    expect(fake.gh.reactions).toEqual([
      { commentId: id, content: 'eyes' },
      { commentId: id, content: '+1' },
    ]);
    expect(replies()[0]!.body).toMatch(
      /✅ Accepted by @maintainer for bbbbbbbbbbbb: `tpcb@64` TPS -1\d\.\d\d%/,
    );

    const passed = await republish(event);
    expect(passed.code, passed.stdout).toBe(0);
    expect(passed.outputs).toMatchObject({ outcome: 'passed', verdict: 'regression' });
    const body = shown(sticky()[0]!.body);
    expect(body.split('\n')[1]).toMatch(
      /\*\*1 regression, not gating \(accepted by @maintainer: the root-page lock fix wins 30% at 1 client\)\*\*/,
    );
    expect(body).toMatch(
      /✅ `tpcb@64` TPS -1\d\.\d\d%: accepted by @maintainer: the root-page lock fix wins 30% at 1 client \(for bbbbbbbbbbbb at -1\d\.\d\d%\)/,
    );
    // The numbers stay: the cell's row is still in the table.
    expect(body).toMatch(/64/);
    expect(shown(passed.summary)).toContain(
      'accepted by @maintainer: the root-page lock fix wins 30% at 1 client',
    );
    expect(fake.gh.statuses.at(-1)).toMatchObject({
      sha: HEAD,
      state: 'success',
      description: expect.stringMatching(
        /^Passed: regression accepted by @maintainer, tpcb@64 TPS -1\d\.\d%: the root-page/,
      ),
    });

    // A push: the same regression on a new head commit fails again, and the comment says why.
    fake.gh.pullHeads.set(PR, NEW_HEAD);
    await writeResults('new', regressionAt(NEW_HEAD));
    const again = await step(
      { mode: 'comment', 'results-dir': 'new' },
      prEvent(NEW_HEAD),
      'pull_request',
      NEW_HEAD,
    );
    expect(again.code).toBe(1);
    expect(again.outputs.outcome).toBe('failed');
    expect(shown(sticky()[0]!.body)).toMatch(
      /⚠️ `tpcb@64` TPS -1\d\.\d\d%: \*\*no longer accepted\*\*, a new head commit was measured \(accepted by @maintainer/,
    );
    expect(fake.gh.statuses.at(-1)).toMatchObject({ sha: NEW_HEAD, state: 'failure' });
  });

  it('a regression grown beyond the accepted one by more than the threshold fails again', async () => {
    const { event } = await failThenAccept();
    const worse = syntheticRun({
      seed: 1,
      rounds: 8,
      workloads: { tpcb: [1, 8, 64] },
      effect: (arm, _, clients) => (arm === 'head' && clients === 64 ? 0.7 : 1),
    });
    await writeResults('worse', { ...worse, source: regressionAt(HEAD).source });
    const ran = await republish(event, 'worse');
    expect(ran.code).toBe(1);
    expect(shown(sticky()[0]!.body)).toMatch(
      /\*\*no longer accepted\*\*, the regression grew by more than the 2% threshold/,
    );
  });

  it('an acceptance edited after it was given, or by a user who lost write permission, does not count', async () => {
    const { id, event } = await failThenAccept();
    fake.gh.editComment(id, `/pgperf accept tpcb@64 ${REASON}`);
    const edited = await republish(event);
    expect(edited.code).toBe(1);
    expect(edited.stdout).toMatch(
      /does not count: its \/pgperf accept comment was edited after it was given/,
    );

    const second = commentEvent('maintainer', `/pgperf accept tpcb@64 ${REASON}`);
    expect((await commandJob(second.event, 'tpcb-like')).outputs.command).toBe('accept');
    expect((await republish(second.event)).code).toBe(0);
    fake.gh.permissions.set('maintainer', 'read');
    const revoked = await republish(second.event);
    expect(revoked.code).toBe(1);
    expect(revoked.stdout).toMatch(/does not count: @maintainer's permission is now read/);
  });

  it("a reader's accept is refused, and a forged acceptance record in anyone's comment is ignored", async () => {
    const { accepted, event } = await failThenAccept('reader');
    expect(accepted.outputs).toMatchObject({ command: 'refused', republish: 'false' });
    // A copy of a real record, pasted by someone else, names a comment of a permitted user: it is not the bot's.
    const record = Buffer.from(
      JSON.stringify({
        commandId: fake.gh.addComment(PR, 'maintainer', `/pgperf accept tpcb@64 ${REASON}`).id,
        by: 'maintainer',
        sha: HEAD,
        reason: REASON,
        cells: [{ workload: 'tpcb', clients: 64, metric: 'tps', deltaPct: -12 }],
      }),
    ).toString('base64url');
    fake.gh.addComment(PR, 'reader', `looks fine\n<!-- pgperf:acceptance ${record} -->`);
    const ran = await republish(event);
    expect(ran.code).toBe(1);
    expect(ran.outputs.outcome).toBe('failed');
    expect(shown(sticky()[0]!.body)).not.toContain('accepted by');
  });

  it('an accept for a result that is not the PR head, or of a cell that does not fail, is refused', async () => {
    await failThenAccept();
    const passing = commentEvent('maintainer', '/pgperf accept tpcb@1 nothing to see');
    const none = await commandJob(passing.event, 'tpcb-like');
    expect(none.outputs.command).toBe('refused');
    expect(replies().at(-1)!.body).toMatch(
      /no cell of `tpcb@1` fails the gate .* \(failing: tpcb@64\): nothing to accept/,
    );
    fake.gh.pullHeads.set(PR, NEW_HEAD);
    const moved = await commandJob(
      commentEvent('maintainer', `/pgperf accept tpcb@64 ${REASON}`).event,
      'tpcb-like',
    );
    expect(moved.outputs.command).toBe('refused');
    expect(replies().at(-1)!.body).toContain(
      'the result shown is for bbbbbbbbbbbb, but the PR head is now eeeeeeeeeeee: run `/pgperf run` first',
    );
  });
});

describe('/pgperf accept on a fleet (mode consolidate)', () => {
  /** Three shards of one plan with head 20% slower at select-only@2, as the matrix jobs upload them. */
  async function fleetShards(): Promise<string> {
    const doc = withRegression('select-only@2', 0.8);
    for (const [i, shard] of shardDocuments(3, doc.environment.cpuModel, doc).entries()) {
      await writeResults(path.join('fleet', `shard-${i + 1}`), shard.result);
    }
    return 'fleet';
  }
  const consolidate = (dir: string) =>
    step({ mode: 'consolidate', 'results-dir': dir, 'fail-on': 'regression' }, prEvent(HEAD), 'pull_request');

  it('the consolidated comment carries its decision, so a maintainer can accept; the re-run consolidation passes', async () => {
    collaborators();
    const dir = await fleetShards();
    const failed = await consolidate(dir);
    expect(failed.code, failed.stdout).toBe(1);
    expect(failed.outputs.outcome).toBe('failed');

    const { event } = commentEvent('maintainer', `/pgperf accept select-only@2 ${REASON}`);
    const accepted = await commandJob(event, 'select-only');
    expect(accepted.outputs, accepted.stdout).toMatchObject({ command: 'accept', 'head-sha': HEAD });
    expect(replies().at(-1)!.body).toMatch(
      /✅ Accepted by @maintainer for bbbbbbbbbbbb: `select-only@2` TPS -20\.00%/,
    );

    const passed = await consolidate(dir);
    expect(passed.code, passed.stdout).toBe(0);
    expect(passed.outputs).toMatchObject({ outcome: 'passed', verdict: 'regression' });
    const body = shown(sticky()[0]!.body);
    expect(body).toMatch(
      /✅ `select-only@2` TPS -20\.00%: accepted by @maintainer: the root-page lock fix wins 30% at 1 client/,
    );
    expect(shown(passed.summary)).toContain('accepted by @maintainer');
    expect(fake.gh.statuses.at(-1)).toMatchObject({ sha: HEAD, state: 'success' });
  });
});

describe('comment-on: change', () => {
  it('a decision that stays the same leaves the comment alone; a changed one updates it', async () => {
    collaborators();
    await writeResults('same', regressionAt(HEAD));
    const inputs = { mode: 'comment', 'results-dir': 'same', 'comment-on': 'change' };
    expect((await step(inputs, prEvent(HEAD), 'pull_request')).code).toBe(1);
    const patches = () => fake.gh.requests.filter((r) => r.method === 'PATCH').length;
    const quiet = await step(inputs, prEvent(HEAD), 'pull_request');
    expect(quiet.code).toBe(1);
    expect(quiet.stdout).toContain(
      'comment-on change: the decision is still failed (regression); the comment is left as it is',
    );
    expect(patches()).toBe(0);
    // The status is still set on every run.
    expect(fake.gh.statuses).toHaveLength(2);
    const lenient = await step({ ...inputs, 'fail-on': 'never' }, prEvent(HEAD), 'pull_request');
    expect(lenient.code).toBe(0);
    expect(patches()).toBe(1);
  });
});
