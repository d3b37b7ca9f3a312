/**
 * The built action's `mode: bisect` (dist/index.js as the runner runs it), started by an `issues` event
 * that labels a regression issue `pgperf-bisect`. The issue is the real renderer's (syncRegressionIssues
 * through octokit into the fake GitHub API on 127.0.0.1), from a nightly history whose change point falls
 * between two commits of the bisect fixture (test/helpers/bisect-series.ts: PostgreSQL 18 source with
 * commits of our own, one sleeping 50 ms in every ExecutorRun). To keep the cost down the range is that one
 * step, good = the commit before the slow one, bad = the slow one: both builds are in the shared test cache
 * after the bisect integration test (cold: about 4.5 minutes each), and one A/B test runs. The comment,
 * the summary, the outputs and the store must all name the slow commit; issues pgperf did not open and
 * commits in the wrong order are refused, naming the issue or the input, before anything is built.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BisectReport } from '../../src/core/history/bisect-report.js';
import { octokitApi } from '../../src/github/octokit-api.js';
import { BISECT_LABEL, syncRegressionIssues } from '../../src/flows/nightly/regression-issues.js';
import { analyseHistory } from '../../src/core/history/history-analysis.js';
import type { HistoryRun } from '../../src/core/history/series.js';
import { DirStore } from '../../src/store/dir/dir-store.js';
import { runBuiltAction } from '../helpers/action-run.js';
import { prepareBisectSeries, SLOW_COMMIT_INDEX, type BisectSeries } from '../helpers/bisect-series.js';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { testCacheDir } from '../../testkit/pg-source.js';
import { processesMentioning } from '../../testkit/postgres.js';
import { WORKLOAD, commitSha, noisyHistory } from '../unit/history/noisy-history.js';

const cacheDir = testCacheDir();
let series: BisectSeries;
let tmp: string;
let gh: FakeGitHub;
/** The commit before the slow one, and the slow one. */
let good: string;
let bad: string;

beforeAll(async () => {
  await mkdir(cacheDir, { recursive: true, mode: 0o755 });
  await chmod(cacheDir, 0o755);
  series = await prepareBisectSeries(path.join(cacheDir, 'repos', 'pg18-bisect'));
  good = series.shas[SLOW_COMMIT_INDEX - 1]!;
  bad = series.shas[SLOW_COMMIT_INDEX]!;
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-e2e-bisect-'));
  await chmod(tmp, 0o755);
  // 10 ms of sleep per transaction: steady on a loaded machine; the slow commit's 50 ms is unmistakable.
  await writeFile(path.join(tmp, 'sleepy.sql'), 'SELECT pg_sleep(0.01);\n');
  await writeFile(
    path.join(tmp, 'sleepy.yml'),
    'name: sleepy\ntool: pgbench\nscripts: [{ file: sleepy.sql }]\nscale: 1\nclients: [1]\nduration: 2\nwarmup: 0\nrounds: 6\n',
  );
  for (const f of ['sleepy.sql', 'sleepy.yml']) await chmod(path.join(tmp, f), 0o644);
  gh = await startFakeGitHub();
}, 600_000);
afterAll(async () => {
  await gh?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** Nightly history of workload sleepy whose change point is good -> bad (nights 25 -> 26), or bad -> good. */
function history(swapped = false): HistoryRun[] {
  return noisyHistory({ nights: 40, stepAt: 26, factor: 0.8, clients: [1] }).map(
    (run) =>
      JSON.parse(
        JSON.stringify(run)
          .replaceAll(commitSha(25), swapped ? bad : good)
          .replaceAll(commitSha(26), swapped ? good : bad)
          .replaceAll(`"${WORKLOAD}"`, '"sleepy"'),
      ) as HistoryRun,
  );
}

/** Opens the regression issue as nightly would (as login `author`); returns the labeled event's payload. */
async function regressionIssue(author: string, swapped = false) {
  gh.login = author;
  const api = octokitApi({
    token: 't',
    baseUrl: gh.url,
    owner: 'pg',
    repo: 'postgres',
    retry: { retries: 0 },
  });
  const done = await syncRegressionIssues(api, analyseHistory(history(swapped)), {
    repoUrl: 'https://github.com/pg/postgres',
  });
  gh.login = 'pgperf-bot';
  expect(done.opened).toHaveLength(1);
  const issue = gh.issues.get(done.opened[0]!)!;
  return {
    number: issue.number,
    event: {
      action: 'labeled',
      label: { name: BISECT_LABEL },
      issue: { ...issue, labels: [...issue.labels, { name: BISECT_LABEL }] },
      repository: { full_name: 'pg/postgres' },
    },
  };
}

/**
 * The store nightly wrote: the history the issue was opened from. Bisect trusts an issue's commits only
 * when they are runs of its series there. Returns the ids saved.
 */
async function nightlyStore(dir: string, runs: HistoryRun[]): Promise<string[]> {
  const store = await DirStore.open(path.join(tmp, dir), { warn: () => {} });
  try {
    const ids: string[] = [];
    for (const run of runs) ids.push((await store.save(run)).id);
    return ids;
  } finally {
    await store.close();
  }
}

function bisect(inputs: Record<string, string>, event: unknown, eventName = 'issues') {
  return runBuiltAction(
    {
      mode: 'bisect',
      repo: series.repo.dir,
      'cache-dir': cacheDir,
      workloads: 'sleepy.yml',
      // ~10 ms per transaction becomes ~60 ms: about -80%, far beyond the threshold and the noise.
      threshold: '40',
      'github-token': 'test-token',
      'results-dir': 'bisect-results',
      ...inputs,
    },
    { workspace: tmp, apiUrl: gh.url, event, eventName, sha: 'f'.repeat(40) },
  );
}

describe('the action in mode bisect', () => {
  it('names the slow commit of a labeled regression issue, comments it there, and saves the A/B test to the store', async () => {
    gh.issues.clear();
    const issue = await regressionIssue('pgperf-bot');
    const nightly = await nightlyStore('bisect-store', history());
    const ran = await bisect({ store: 'bisect-store' }, issue.event);
    expect(ran.code, ran.stdout.slice(-4000)).toBe(0);
    expect(ran.outputs).toMatchObject({
      'first-bad-commit': bad,
      'bisect-outcome': 'found',
      verdict: 'regression',
    });
    const report = JSON.parse(await readFile(ran.outputs['bisect-json']!, 'utf8')) as BisectReport;
    expect(report.good.sha).toBe(good);
    expect(report.bad.sha).toBe(bad);
    expect(report.cell).toEqual({ workload: 'sleepy', clients: 1 });
    expect(report.outcome.kind).toBe('found');
    if (report.outcome.kind !== 'found') return;
    expect(report.outcome.judgement?.verdict).toBe('regression');
    expect(report.outcome.judgement?.ci95?.upperPct).toBeLessThan(0);
    expect(report.cost.builds).toBe(2);
    // The comment on the issue, the summary and report.md are one rendering, outcome first.
    const comments = gh.comments.get(issue.number) ?? [];
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toBe(ran.summary);
    // A local repo: commits are named, not linked.
    expect(ran.summary.split('\n')[0]).toBe(`## pgperf bisect: 🔴 first bad commit \`${bad.slice(0, 7)}\``);
    expect(ran.summary).toMatch(/measured \*\*-\d+(\.\d+)?% \[/);
    expect(ran.summary).toMatch(/Cost: 2 build\(s\) \(\d cache hit\(s\), [\d.]+ s\), 1 A\/B test\(s\)/);
    expect(await readFile(ran.outputs['report-markdown']!, 'utf8')).toBe(ran.summary);
    // Every A/B test is in the store, as the bad commit against good.
    const store = await DirStore.open(path.join(tmp, 'bisect-store'), { warn: () => {} });
    try {
      const runs = (await store.list()).filter((r) => !nightly.includes(r.id));
      expect(runs).toHaveLength(report.cost.tests);
      expect(runs[0]!.commits).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ sha: good }),
          expect.objectContaining({ sha: bad }),
        ]),
      );
      expect(runs.map((r) => r.id)).toContain(report.tested[0]!.judgement.tries[0]!.storedAs);
    } finally {
      await store.close();
    }
    expect(processesMentioning(tmp)).toEqual([]);
  }, 3_600_000);

  it('refuses an issue someone else opened and good after bad, naming the issue and the inputs, building nothing', async () => {
    gh.issues.clear();
    gh.comments.clear();
    const forged = await regressionIssue('mallory');
    const refused = await bisect({}, forged.event);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toContain(
      `issue #${forged.number} was opened by 'mallory', not by 'pgperf-bot' (the token's login that opens the regression issues)`,
    );
    expect(refused.stdout).not.toMatch(/building/);
    expect(gh.comments.get(forged.number) ?? []).toEqual([]);

    // Opened by the bot account, but any workflow of the repository acts as it: the commits must be runs
    // of the issue's series in the store nightly writes. An empty store bears nothing out.
    const unborne = await regressionIssue('pgperf-bot');
    await nightlyStore('empty-store', []);
    const refusedUnborne = await bisect({ 'results-dir': 'unborne', store: 'empty-store' }, unborne.event);
    expect(refusedUnborne.code).not.toBe(0);
    expect(refusedUnborne.stdout).toMatch(
      new RegExp(`issue #${unborne.number}: its series \\S+ is not in the results store`),
    );
    expect(refusedUnborne.stdout).not.toMatch(/building/);

    const swapped = await bisect(
      { 'base-ref': bad, 'head-ref': good, clients: '1', 'results-dir': 'swapped' },
      { inputs: {} },
      'workflow_dispatch',
    );
    expect(swapped.code).not.toBe(0);
    expect(swapped.stdout).toContain(
      `input 'base-ref' ${bad} (${bad.slice(0, 7)}) is not an ancestor of input 'head-ref' ${good}`,
    );
    expect(swapped.stdout).toContain('swap them?');

    // pgperf's own issue, but its commits are the wrong way round: refused, and said on the issue.
    gh.issues.clear(); // the issue above is of the same series: nightly would update it, not open another
    const wrongWay = await regressionIssue('pgperf-bot', true);
    await nightlyStore('wrong-way-store', history(true));
    const refusedOnIssue = await bisect(
      { 'results-dir': 'wrong-way', store: 'wrong-way-store' },
      wrongWay.event,
    );
    expect(refusedOnIssue.code).not.toBe(0);
    const said = `issue #${wrongWay.number}'s last good commit ${bad} (${bad.slice(0, 7)}) is not an ancestor of issue #${wrongWay.number}'s first bad commit ${good}`;
    expect(refusedOnIssue.stdout).toContain(said);
    const comments = gh.comments.get(wrongWay.number) ?? [];
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toMatch(/^## pgperf bisect: ❌ not run\n/);
    expect(comments[0]!.body).toContain(`is not an ancestor of issue &#35;${wrongWay.number}`); // # escaped: no heading, no link
  }, 300_000);
});
