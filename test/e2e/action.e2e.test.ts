/**
 * The built action (dist/index.js), run the way the GitHub runner runs it: INPUT_* variables, an event
 * payload file, GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files, and GITHUB_API_URL pointing at a recording
 * fake of the REST API on 127.0.0.1. PostgreSQL: the machine's installed binaries as base and head.
 */
import { access, chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { runBenchmark } from '../../src/run/run-loop.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { runBuiltAction, type ActionRun } from '../helpers/action-run.js';
import { pullRequestEvent, SHORT_RUN_INPUTS } from '../helpers/action-events.js';
import { useFakeGitHub } from '../helpers/fake-github-per-test.js';
import { preparePgSourceRepo, testCacheDir } from '../../testkit/pg-source.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';
import { resolveAnalysis } from '../../src/core/compare/analysis/recorded-analysis.js';
import { fileSink } from '../../src/run/sink.js';

const root = new URL('../../', import.meta.url).pathname;
const binDir = installedBinDir();
const PR = 42;
const HEAD_SHA = 'a'.repeat(40);
let tmp: string;
const fake = useFakeGitHub();

const prEvent = pullRequestEvent({ number: PR, headSha: HEAD_SHA, headRef: 'fix/btree-root-lock' });

/** Runs dist/index.js with the given inputs (defaults as action.yml would fill them). */
async function runAction(
  inputs: Record<string, string>,
  event: unknown = prEvent,
  eventName = 'pull_request',
): Promise<ActionRun> {
  const defaults: Record<string, string> = {
    mode: 'benchmark',
    'base-bin-dir': binDir,
    'head-bin-dir': binDir,
    workloads: path.join(root, 'workloads/smoke.yml'),
    rounds: '2',
    // 2 rounds cannot reach significance: refused unless forced (the tests that need verdicts set rounds).
    ...SHORT_RUN_INPUTS,
    'comment-id': 'default',
  };
  return runBuiltAction(
    { ...defaults, ...inputs },
    { workspace: tmp, apiUrl: fake.gh.url, event, eventName, sha: HEAD_SHA },
  );
}

const mine = (issue = PR) => (fake.gh.comments.get(issue) ?? []).filter((c) => c.user.login === 'pgperf-bot');

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-e2e-'));
  await chmod(tmp, 0o755);
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('the action (dist/index.js) on a pull_request', () => {
  it('benchmarks, creates one comment, sets the status and outputs; a second run updates the comment', async () => {
    // A look-alike comment by someone else, and enough comments that ours is not on the first page.
    fake.gh.addComment(PR, 'someone-else', '<!-- pgperf:comment-id=default --> copied');
    for (let i = 0; i < 120; i++) fake.gh.addComment(PR, 'reviewer', `LGTM ${i}`);

    const first = await runAction({});
    expect(first.code, first.stdout).toBe(0);
    expect(mine()).toHaveLength(1);
    const body = mine()[0]!.body;
    expect(body).toContain('<!-- pgperf:comment-id=default -->');
    expect(body).toMatch(/smoke/);
    // Prebuilt bin dirs were measured: the headline names them and their version, not the event's shas.
    const headline = body.split('\n')[1]!;
    expect(headline).toMatch(
      new RegExp(` · head ${binDir.replace(/[/.]/g, '\\$&')} \\(PostgreSQL \\d+\\.\\d+\\) vs base `),
    );
    expect(headline).not.toContain(HEAD_SHA.slice(0, 7));
    // Base is the merge-base of the PR head and the base branch, asked of the compare API.
    expect(
      fake.gh.requests.some(
        (r) =>
          r.method === 'GET' &&
          r.path.startsWith(`/repos/pg/postgres/compare/${'c'.repeat(40)}...${HEAD_SHA}`),
      ),
    ).toBe(true);
    // The status carries the verdict: an undecided comparison is pending ("needs more rounds"), never green.
    // Inconclusive whatever the machine's noise, by construction: 2 rounds are 2 pairs, whose signed-rank p
    // is never below 0.5 (no regression or improvement), and whose 90% interval reaches only 50% confidence
    // (neither no-change nor a likely regression, both of which need the 90% level).
    expect(fake.gh.statuses).toHaveLength(1);
    const status = fake.gh.statuses[0]!;
    expect(status).toMatchObject({ sha: HEAD_SHA, context: 'pgperf/default' });
    expect(first.outputs.verdict).toBe('inconclusive');
    expect(status.state).toBe('pending');
    expect(status.description).toMatch(/needs more rounds/);
    expect(first.outputs['worst-delta']).toMatch(/^-?\d+\.\d\d$/);
    expect(first.outputs['results-json']).toBe(path.join(tmp, 'pgperf-results/results.json'));
    const result = JSON.parse(await readFile(first.outputs['results-json']!, 'utf8')) as RunResult;
    expect(result.source).toMatchObject({
      prNumber: PR,
      base: { sha: fake.gh.mergeBaseSha },
      head: { sha: HEAD_SHA },
    });
    expect(result.samples.filter((s) => s.status === 'ok')).toHaveLength(8);
    expect(await readFile(first.outputs['report-markdown']!, 'utf8')).toBe(body);
    expect(first.summary).toContain('smoke');
    expect(first.stdout).toMatch(/::group::Benchmark/);
    // The look-alike and the reviewers' comments are untouched.
    expect(fake.gh.comments.get(PR)![0]!.body).toBe('<!-- pgperf:comment-id=default --> copied');
    expect(
      fake.gh.requests.filter((r) => r.method === 'GET' && /\/issues\/42\/comments/.test(r.path)).length,
    ).toBeGreaterThanOrEqual(2);

    // Second run (comment mode over the same results): the same comment is edited, none is added.
    const id = mine()[0]!.id;
    const posts = fake.gh.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/comments')).length;
    const second = await runAction({ mode: 'comment' });
    expect(second.code, second.stdout).toBe(0);
    expect(mine()).toHaveLength(1);
    expect(mine()[0]!.id).toBe(id);
    expect(fake.gh.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/comments')).length).toBe(
      posts,
    );
    expect(
      fake.gh.requests.some(
        (r) => r.method === 'PATCH' && r.path === `/repos/pg/postgres/issues/comments/${id}`,
      ),
    ).toBe(true);
    expect(processesMentioning(tmp)).toEqual([]);
  });

  it('keeps one comment per comment-id', async () => {
    await writeResults('ids', await syntheticResults());
    for (const commentId of ['ro', 'rw', 'ro']) {
      const ran = await runAction({ mode: 'comment', 'comment-id': commentId, 'results-dir': 'ids' });
      expect(ran.code, ran.stdout).toBe(0);
    }
    expect(mine().map((c) => /comment-id=(\w+)/.exec(c.body)![1])).toEqual(['ro', 'rw']);
  });

  it('with GITHUB_TOKEN (no /user), comments as github-actions[bot]', async () => {
    await writeResults('bot', await syntheticResults());
    fake.gh.login = undefined;
    fake.gh.addComment(PR, 'github-actions[bot]', '<!-- pgperf:comment-id=default --> old report');
    const ran = await runAction({ mode: 'comment', 'results-dir': 'bot' });
    expect(ran.code, ran.stdout).toBe(0);
    const bots = fake.gh.comments.get(PR)!.filter((c) => c.user.login === 'github-actions[bot]');
    expect(bots).toHaveLength(1);
    expect(bots[0]!.body).not.toContain('old report');
  });
});

describe('the action building from source', () => {
  it('builds base and head from a git repository (cache hits on a warm machine) and decides them: the uncalled function head is no change (changed code not executed), no timed round', async () => {
    const cacheDir = testCacheDir();
    // Its own copy of the build tests' fixture repo (same fixed commits, so the same cached installs).
    const repo = await preparePgSourceRepo({ major: 18, dir: path.join(cacheDir, 'repos', 'pg18-action') });
    const ran = await runAction(
      {
        repo: repo.dir,
        'base-ref': repo.baseRef,
        'head-ref': repo.headRef,
        'base-bin-dir': '',
        'head-bin-dir': '',
        'cache-dir': cacheDir,
        comment: 'false',
        'commit-status': 'false',
        'github-token': '',
        'results-dir': 'built',
        // The 1 client the counted runs have: at more clients the counts cannot vouch for the head (code
        // that only concurrency runs), and those cells would be timed.
        'client-counts': '1',
      },
      { inputs: {} },
      'workflow_dispatch',
    );
    expect(ran.code, ran.stdout).toBe(0);
    expect(ran.stdout).toMatch(/::group::Build/);
    const result = JSON.parse(await readFile(ran.outputs['results-json']!, 'utf8')) as RunResult;
    expect(result.arms.map((a) => a.build?.sha)).toEqual([repo.baseSha, repo.headSha]);
    expect(result.arms.map((a) => a.serverVersion)).toEqual([
      expect.stringMatching(/PostgreSQL\) 18\./),
      expect.stringMatching(/PostgreSQL\) 18\./),
    ]);
    expect(result.source).toMatchObject({
      base: { ref: repo.baseRef, chosenBy: 'input base-ref' },
      head: { ref: repo.headRef },
    });
    // Head only adds an uncalled function, the one difference the compiled-code comparison finds. The
    // instructions are counted by default (input instructions: auto), and none of the counting servers'
    // processes ran that function: every cell is no change (changed code not executed), with no timed round.
    expect(
      result.instructions!.samples.map((s) => s.arm).sort(),
      `${JSON.stringify(result.instructions!.failures)}\n${ran.stdout}`,
    ).toEqual(['base', 'base', 'base', 'head', 'head', 'head']);
    expect(result.compiledCode![0]!.serverFunctions!.all).toEqual(['pgperf_fixture_variant']);
    expect(result.instructions!.changedCode).toEqual([
      expect.objectContaining({ head: 'head', changedCount: 1, executed: [], executedCount: 0 }),
    ]);
    // On failure: what the counts were, so a run that timed this head says why.
    const counted = JSON.stringify({
      samples: result.instructions!.samples.map((s) => [s.arm, s.repetition, Math.round(s.perTx)]),
      notes: result.instructions!.notes,
    });
    expect(result.samples, counted).toEqual([]);
    expect(result.plan.rounds, counted).toBe(0);
    const decision = JSON.parse(await readFile(ran.outputs['decision-json']!, 'utf8')) as {
      outcome: string;
      cells: Array<{ metric: string; verdict: string; evidence: string }>;
      counts: { unstable: number };
      cost?: { countedS: number; timedRounds: number };
    };
    // Bistable counts (valgrind's repetitions split into two groups from start to start) are layout, which
    // the rule names: the counted cell is decided with the others, never left unstable.
    expect(decision.cells.length).toBeGreaterThan(1);
    for (const c of decision.cells) {
      expect(c, counted).toMatchObject({ verdict: 'no-change', evidence: 'changed code not executed' });
    }
    expect(decision.counts.unstable).toBe(0);
    expect(decision.outcome).toBe('passed');
    expect(ran.stdout).toMatch(
      /the changed function \(pgperf_fixture_variant\) did not run in the counted runs; code placement can still move timings/,
    );
    expect(decision.cost!.countedS).toBeGreaterThan(0);
    expect(decision.cost!.timedRounds).toBe(0);
    expect(ran.outputs.verdict).toBe('no-change');
    expect(fake.gh.requests).toEqual([]);
  }, 1_200_000);
});

describe('gating and failures', () => {
  let regression: RunResult;
  beforeAll(async () => {
    regression = await regressionResults();
  });

  it('fails the step on a regression when fail-on says so, and not with fail-on never', async () => {
    await writeResults('reg', regression);
    const gated = await runAction({ mode: 'comment', 'results-dir': 'reg' });
    expect(gated.code).toBe(1);
    expect(gated.outputs.verdict).toBe('regression');
    expect(Number(gated.outputs['worst-delta'])).toBeLessThan(-2);
    expect(gated.stdout).toMatch(
      /::error::\d (likely )?regressions?.*: writes at 1 client, .*\(fail-on: regression\)/,
    );
    expect(gated.outputs.outcome).toBe('failed');
    expect(fake.gh.statuses.at(-1)).toMatchObject({
      state: 'failure',
      description: expect.stringMatching(/^Failed: (likely )?regression writes@1 /),
    });
    expect(mine()[0]!.body).toMatch(/regression/i);
    // Why it changed: the wait events of the regressed cell, base vs head, sampled during every run.
    expect(regression.samples.some((s) => (s.diagnostics?.observations ?? 0) > 0)).toBe(true);
    expect(mine()[0]!.body).toMatch(/<summary>Why it changed: wait events, writes(@|&#64;)1: regression/);

    const lenient = await runAction({ mode: 'comment', 'results-dir': 'reg', 'fail-on': 'never' });
    expect(lenient.code).toBe(0);
    expect(fake.gh.statuses.at(-1)).toMatchObject({ state: 'success' });
  });

  it("a fork's read-only token (403): warns which permission is missing; results kept; the verdict still decides", async () => {
    await writeResults('fork', regression);
    fake.gh.refuse.push(
      { method: 'POST', pathPattern: /\/comments$/, status: 403 },
      { method: 'POST', pathPattern: /\/statuses\//, status: 403 },
    );
    const ran = await runAction({ mode: 'comment', 'results-dir': 'fork' });
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(/::warning::.*lacks 'pull-requests: write/);
    expect(ran.stdout).toMatch(/::warning::.*lacks 'statuses: write'/);
    expect(ran.outputs.verdict).toBe('regression');
    expect(await readFile(path.join(tmp, 'fork/report.md'), 'utf8')).toMatch(/regression/i);
  });

  it.each([
    [
      { 'fail-on': 'sometimes' },
      "input 'fail-on' must be one of regression, inconclusive, never, got 'sometimes'",
    ],
    [
      { mode: 'publish' },
      "input 'mode' must be one of benchmark, comment, nightly, consolidate, calibrate, bisect, command, attribute, got 'publish'",
    ],
    [{ 'github-token': '' }, "input 'github-token' is empty but 'comment' or 'commit-status' is on"],
    [{ rounds: 'many' }, "input 'rounds' must be a whole number >= 1, got 'many'"],
    [{ 'cpu-dma-latency': '-1' }, "input 'cpu-dma-latency' must be a whole number >= 0, got '-1'"],
  ])('bad input %j is named', async (inputs, message) => {
    const ran = await runAction(inputs);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain(`::error::${message}`);
    expect(fake.gh.requests).toEqual([]);
  });

  it('a governor this machine cannot set stops the step before any server starts, naming the input', async () => {
    const cpufreq = await access('/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor').then(
      () => true,
      () => false,
    );
    // This VM has no cpufreq; on a machine with it, ask for a governor no driver offers.
    const ran = await runAction({ governor: cpufreq ? 'no-such-governor' : 'performance' });
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(
      cpufreq
        ? /::error::input 'governor': "no-such-governor" is not available for CPU \d+ \(available: /
        : /::error::input 'governor': \/sys\/devices\/system\/cpu\/cpu0\/cpufreq\/scaling_governor does not exist/,
    );
    expect(ran.stdout).not.toMatch(/initdb/);
  });

  it('a plan that cannot reach significance is refused before the run unless force is true', async () => {
    const ran = await runAction({ force: 'false' });
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(
      /::error::the plan cannot reach significance in any cell: Holm over 2 hypotheses .*smoke@1, smoke@2\): 2 rounds, smallest p 0\.33 x 2 = 0\.67; each is >= alpha 0\.05.*force: 'true'/,
    );
  });

  it('an event without a pull request and no refs is refused, naming the inputs', async () => {
    const ran = await runAction(
      { 'base-bin-dir': '', 'head-bin-dir': '' },
      { ref: 'refs/heads/master' },
      'push',
    );
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain(
      "::error::the 'push' event has no pull request: set the inputs 'base-ref' and 'head-ref'",
    );
  });
});

describe('mode comment trusts the event, not results.json (fork artifacts)', () => {
  let regression: RunResult;
  beforeAll(async () => {
    regression = await regressionResults();
  });
  const OTHER_PR = 99;
  const OTHER_SHA = 'd'.repeat(40);
  const workflowRun = (pullRequests: number[]) => ({
    action: 'completed',
    workflow_run: { head_sha: HEAD_SHA, pull_requests: pullRequests.map((number) => ({ number })) },
  });

  it('posts on the PR the workflow_run event names, and sets the status on its head', async () => {
    await writeResults('wr', regression);
    const ran = await runAction({ mode: 'comment', 'results-dir': 'wr' }, workflowRun([PR]), 'workflow_run');
    expect(ran.code).toBe(1); // the regression gates
    expect(mine(PR)).toHaveLength(1);
    expect(fake.gh.statuses).toEqual([expect.objectContaining({ sha: HEAD_SHA, state: 'failure' })]);
  });

  it('a forged PR number in results.json cannot redirect the comment or the status', async () => {
    fake.gh.pullHeads.set(OTHER_PR, OTHER_SHA);
    await writeResults('forged-pr', { ...regression, source: { ...regression.source, prNumber: OTHER_PR } });
    // A fork's workflow_run lists no PRs: the claim is checked against the API and refused.
    const ran = await runAction(
      { mode: 'comment', 'results-dir': 'forged-pr' },
      workflowRun([]),
      'workflow_run',
    );
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(/::error::mode comment: PR #99's head is dddddddddddd, not aaaaaaaaaaaa/);
    expect(fake.gh.comments.get(OTHER_PR) ?? []).toEqual([]);
    expect(fake.gh.statuses).toEqual([]);
    expect(fake.gh.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('results of another commit are refused, naming the file and both commits', async () => {
    const forged = {
      ...regression,
      source: { ...regression.source, head: { sha: OTHER_SHA, chosenBy: 'forged' } },
    };
    await writeResults('forged-sha', forged);
    const ran = await runAction(
      { mode: 'comment', 'results-dir': 'forged-sha' },
      workflowRun([PR]),
      'workflow_run',
    );
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(
      /forged-sha\/results\.json: source\.head\.sha is dddddddddddd, but the workflow_run event/,
    );
    expect(fake.gh.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('a wrongly typed results.json is an error naming the field, not a crash', async () => {
    const broken = JSON.parse(JSON.stringify(regression)) as Record<string, unknown>;
    (broken.samples as Array<Record<string, unknown>>)[0]!.metrics = { tps: 'fast' };
    await mkdir(path.join(tmp, 'typed'), { recursive: true });
    await writeFile(path.join(tmp, 'typed', 'results.json'), JSON.stringify(broken));
    const ran = await runAction({ mode: 'comment', 'results-dir': 'typed' });
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(/::error::.*typed\/results\.json: samples\[0\]\.metrics\.tps is "fast"/);
    expect(fake.gh.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('an interrupted run sets an error status, fails the step and keeps the earlier verdict in the comment', async () => {
    await writeResults('earlier', regression);
    await runAction({ mode: 'comment', 'results-dir': 'earlier' });
    const earlier = mine(PR)[0]!.body;
    await writeResults('cancelled', {
      ...regression,
      status: 'interrupted',
      stopReason: 'interrupted (signal)',
    });
    const ran = await runAction({ mode: 'comment', 'results-dir': 'cancelled', 'fail-on': 'regression' });
    expect(ran.code).toBe(1);
    expect(fake.gh.statuses.at(-1)).toMatchObject({ sha: HEAD_SHA, state: 'error' });
    const body = mine(PR)[0]!.body;
    expect(mine(PR)).toHaveLength(1);
    expect(body).toMatch(/A later run was interrupted/);
    // The earlier complete report is still there, below the note.
    expect(body).toContain(earlier.split('\n').slice(1).join('\n'));
  });
});

async function writeResults(dir: string, result: RunResult): Promise<void> {
  await mkdir(path.join(tmp, dir), { recursive: true });
  await writeFile(path.join(tmp, dir, 'results.json'), JSON.stringify(result));
}

/** A real run of two arms with one tiny cell (cheap; the comment tests only need a results document). */
async function syntheticResults(): Promise<RunResult> {
  const w = parseWorkload(
    'name: tiny\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 2\n',
    'tiny.yml',
  );
  return realRun('tiny', w, {});
}

/** Head with synchronous_commit = on against base with off, on writes: a real, large regression. */
async function regressionResults(): Promise<RunResult> {
  const w = parseWorkload(
    'name: writes\ntool: pgbench\nbuiltin: tpcb-like\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 1\nrounds: 5\n',
    'writes.yml',
  );
  // Every head commit waits 10 ms before its WAL flush (commit_siblings 0 makes the delay unconditional):
  // a regression no runner noise can hide, so the tests that need one never flake.
  return realRun(
    'writes',
    w,
    { synchronous_commit: 'on', commit_delay: '10000', commit_siblings: '0' },
    { synchronous_commit: 'off' },
  );
}

async function realRun(
  name: string,
  workload: ReturnType<typeof parseWorkload>,
  head: Record<string, string>,
  base: Record<string, string> = {},
): Promise<RunResult> {
  const result = await runBenchmark(
    {
      arms: [
        { label: 'base', binDir, settings: base },
        { label: 'head', binDir, settings: head },
      ],
      workloads: [workload],
      order: 'random',
      sink: fileSink(path.join(tmp, `${name}-source.json`)),
      analysis: resolveAnalysis(),
      dataChecksums: false,
      tmpDir: tmp,
      source: {
        prNumber: PR,
        base: { sha: 'b'.repeat(40), chosenBy: 'test' },
        head: { sha: HEAD_SHA, chosenBy: 'test' },
      },
    },
    { runner: nodeProcessRunner, logger: memoryLogger() },
  );
  expect(result.status).toBe('complete');
  return result;
}
