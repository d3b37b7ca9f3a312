/**
 * The built action's `mode: nightly` (dist/index.js run as the runner runs it), on a scheduled event: the
 * machine's PostgreSQL install is the branch head (head-bin-dir), measured and saved to a store that
 * already holds a synthetic history of another workload (real captured pgbench runs at 1 and 2 clients,
 * 20% slower from night 26, test/unit/history/noisy-history.ts), so what regresses is decided by stored data,
 * not by this machine's noise. The regression issues go to the recording fake of the GitHub API on
 * 127.0.0.1; the data branch is a local bare repository that git is pointed at (url.insteadOf in a private
 * $HOME), so the Action's push-with-retry flow runs unchanged. The step fails under `fail-on` as
 * `pgperf nightly` exits.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  REGRESSION_LABEL,
  parseEventState,
  seriesMarker,
} from '../../src/flows/nightly/regression-issues.js';
import type { HistoryRun } from '../../src/core/history/series.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { DataBranch } from '../../src/store/branch/data-branch.js';
import { DirStore } from '../../src/store/dir/dir-store.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { runBuiltAction } from '../helpers/action-run.js';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { preparePgSourceRepo, testCacheDir } from '../../testkit/pg-source.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';
import { WORKLOAD, commitSha, noisyHistory } from '../unit/history/noisy-history.js';

const root = new URL('../../', import.meta.url).pathname;
const NIGHTLY_SHA = 'd'.repeat(40);
/** The two cells of the prepared history: select-only at 1 and 2 clients, TPS, on the fixture's machine. */
const CELLS = [1, 2].map((clients) => `kvm2-haltpoll-fx/${WORKLOAD}@${clients}/tps`);
let tmp: string;
let gh: FakeGitHub;

/** 40 nights, 20% slower from night 26. */
const history = () => noisyHistory();

/** Nights 40 to 59 of the same history, back to the old level from night 45. */
const recovery = (): HistoryRun[] =>
  noisyHistory({ nights: 60 })
    .slice(40)
    .map((run, i) =>
      40 + i < 45
        ? run
        : {
            ...run,
            samples: run.samples.map((s) => ({ ...s, metrics: { ...s.metrics, tps: s.metrics.tps! / 0.8 } })),
          },
    );

function nightly(inputs: Record<string, string>, env: NodeJS.ProcessEnv = {}) {
  return runBuiltAction(
    {
      mode: 'nightly',
      'head-bin-dir': installedBinDir(),
      workloads: path.join(root, 'workloads/smoke.yml'),
      rounds: '2',
      duration: '1',
      threshold: '2',
      comment: 'true',
      'commit-status': 'true',
      'github-token': 'test-token',
      'results-dir': 'pgperf-results',
      ...inputs,
    },
    {
      workspace: tmp,
      apiUrl: gh.url,
      event: { schedule: '17 2 * * *', repository: { full_name: 'pg/postgres' } },
      eventName: 'schedule',
      sha: NIGHTLY_SHA,
      env: { GITHUB_REF_NAME: 'master', ...env },
    },
  );
}

async function storedRuns(dir: string) {
  const store = await DirStore.open(dir, { warn: () => {} });
  try {
    return await store.list();
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-e2e-nightly-'));
  await chmod(tmp, 0o755);
  gh = await startFakeGitHub();
});
afterAll(async () => {
  await gh?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('the action in mode nightly', () => {
  it('one issue for the two regressed cells, failing the step; updated while it persists; closed on recovery; a 403 is a warning', async () => {
    const storeDir = path.join(tmp, 'nightly-store');
    const store = await DirStore.open(storeDir, { write: true, warn: () => {} });
    for (const run of history()) await store.save(run);
    await store.close();

    // fail-on regression (the default): the open regression event fails the step, after everything is published.
    const first = await nightly({ store: 'nightly-store' });
    expect(first.code, first.stdout).toBe(1);
    // Workflow commands escape % as %25 (@actions/core); the runner shows it decoded.
    expect(first.stdout.replace(/%25/g, '%')).toMatch(
      /::error::open regression event in the history: select-only \(2 cells, worst tps at [12] clients? -\d+\.\d%\) \(fail-on: regression\)/,
    );
    expect(first.outputs).toMatchObject({ verdict: 'regression', regressions: '2', improvements: '0' });
    // Verdict first, then the history's change points with the commit range.
    // The night's one headline, as the decision says it.
    expect(first.summary).toMatch(/^## pgperf nightly: 🔴 Failed: 1 workload regressed \(2 cells\)\n/);
    expect(first.summary).toContain('Measured master @ dddddddddd.');
    expect(first.summary).toContain('### Performance history');
    expect(first.summary).toMatch(/Regression issues: 1 opened, 0 updated, 0 closed \(#\d+\)/);
    expect(await readFile(first.outputs['report-markdown']!, 'utf8')).toBe(first.summary);
    const issues = [...gh.issues.values()];
    expect(issues).toHaveLength(1);
    expect(issues[0]!.labels).toEqual([{ name: REGRESSION_LABEL }]);
    for (const cell of CELLS) expect(issues[0]!.body).toContain(seriesMarker(cell));
    expect(issues[0]!.body).toContain('https://github.com/pg/postgres/actions/runs/777');
    // Tonight's run is stored beside the 40 nights, as the scheduled commit of master.
    const runs = await storedRuns(storeDir);
    expect(runs).toHaveLength(41);
    expect(runs[0]!.commits).toEqual([
      expect.objectContaining({ arm: 'head', sha: NIGHTLY_SHA, ref: 'master' }),
    ]);

    // The regression persists: the same issue, updated; fail-on never passes the step.
    const second = await nightly({ store: 'nightly-store', 'fail-on': 'never' }, { GITHUB_RUN_ID: '778' });
    expect(second.code, second.stdout).toBe(0);
    expect(second.outputs.regressions).toBe('2');
    expect(gh.issues.size).toBe(1);
    const [issue] = [...gh.issues.values()];
    expect(issue!.body).toContain('actions/runs/778');
    expect(gh.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/issues'))).toHaveLength(1);
    expect(
      gh.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith(`/issues/${issue!.number}`)),
    ).toHaveLength(1);
    expect(second.summary).toMatch(/Regression issues: 0 opened, 1 updated, 0 closed/);
    expect(await storedRuns(storeDir)).toHaveLength(42);

    // A token without issues: write: the run is still saved and reported; the warning names it.
    gh.refuse.push({ method: 'GET', pathPattern: /\/issues$/, status: 403 });
    const refused = await nightly({ store: 'nightly-store', 'fail-on': 'never' }, { GITHUB_RUN_ID: '779' });
    gh.refuse.length = 0;
    expect(refused.code, refused.stdout).toBe(0);
    expect(refused.stdout).toMatch(/::warning::.*lacks 'issues: write'/);
    expect(refused.outputs.verdict).toBe('regression');
    expect(gh.issues.size).toBe(1);
    expect(await storedRuns(storeDir)).toHaveLength(43);

    // Every cell recovered: the issue is closed with a comment linking the recovery, and the step passes.
    // The recovery nights run the workload as the nights measured here define it: a series is one
    // definition, and nights of another would start a new one (docs/history.md).
    const again = await DirStore.open(storeDir, { write: true, warn: () => {} });
    const newest = (await again.list()).sort((a, b) => a.startedAt.localeCompare(b.startedAt)).at(-1)!;
    const measured = await again.load(newest.id);
    for (const run of recovery()) {
      await again.save({
        ...run,
        workloads: measured.workloads,
        ...(measured.workloadScripts ? { workloadScripts: measured.workloadScripts } : {}),
      });
    }
    await again.close();
    const recovered = await nightly({ store: 'nightly-store' }, { GITHUB_RUN_ID: '780' });
    expect(recovered.code, recovered.stdout).toBe(0);
    // Nothing regressed any more. The night measured here starts the newest stretch of its series (its
    // recorded definition is not the synthetic recovery nights'), so the night is pending until it has runs
    // enough; the issue is closed all the same.
    expect(recovered.outputs).toMatchObject({ regressions: '0' });
    expect(recovered.outputs.outcome).not.toBe('failed');
    expect(recovered.summary).toMatch(/Regression issues: 0 opened, 0 updated, 1 closed/);
    const closed = gh.issues.get(issue!.number)!;
    expect(closed.state).toBe('closed');
    expect(parseEventState(closed.body)?.state).toBe('recovered');
    const note = gh.comments.get(issue!.number)!.at(-1)!.body;
    expect(note).toContain(`(https://github.com/pg/postgres/commit/${commitSha(45)})`);
    expect(note).toContain('Found by [this run](https://github.com/pg/postgres/actions/runs/780)');
    expect(processesMentioning(tmp)).toEqual([]);
  }, 600_000);

  it('publishes the run and the history site to the data branch', async () => {
    const remote = path.join(tmp, 'remote.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    // The history is already on the branch (one commit), as earlier nights left it.
    const seed = await DataBranch.checkout(
      { remote, branch: 'pgperf-data', workDir: path.join(tmp, 'seed') },
      { runner: nodeProcessRunner, logger: memoryLogger() },
    );
    await seed.publish(async (dir) => {
      const store = await DirStore.open(dir, { write: true, warn: () => {} });
      for (const run of history()) await store.save(run as RunResult);
      await store.close();
      return 'seed: 40 nights';
    });
    await seed.close();
    // The Action pushes to https://x-access-token:TOKEN@github.com/pg/postgres.git: here, the bare repo.
    const home = path.join(tmp, 'home');
    await mkdir(home);
    await writeFile(
      path.join(home, '.gitconfig'),
      `[url "${remote}"]\n\tinsteadOf = https://github.com/pg/postgres.git\n`,
    );
    const ran = await nightly(
      { 'store-branch': 'pgperf-data', 'publish-site': 'docs', 'results-dir': 'branch-results' },
      { HOME: home },
    );
    // The history's open regression event fails the step (fail-on regression) after the run and the site are pushed.
    expect(ran.code, ran.stdout).toBe(1);
    expect(ran.outputs.verdict).toBe('regression');
    const head = execFileSync('git', ['--git-dir', remote, 'rev-parse', 'refs/heads/pgperf-data'])
      .toString()
      .trim();
    expect(ran.outputs['site-commit']).toBe(head);
    const log = execFileSync('git', ['--git-dir', remote, 'log', '--format=%s', 'pgperf-data'])
      .toString()
      .trim()
      .split('\n');
    expect(log).toEqual([
      expect.stringMatching(/^pgperf: history site \(\d+ pages\)$/),
      // Saved when the loop finished it, then again with what the answer cost (the same run id).
      expect.stringMatching(/^pgperf: run /),
      expect.stringMatching(/^pgperf: run /),
      'seed: 40 nights',
    ]);
    const clone = path.join(tmp, 'verify');
    execFileSync('git', ['clone', '-q', '--branch', 'pgperf-data', remote, clone]);
    expect(await storedRuns(path.join(clone, 'store'))).toHaveLength(41);
    const site = await readdir(path.join(clone, 'docs'));
    expect(site).toEqual(expect.arrayContaining(['index.html', '.nojekyll']));
    const index = await readFile(path.join(clone, 'docs', 'index.html'), 'utf8');
    expect(index).toContain(WORKLOAD);
    expect(ran.summary).toContain('History site: `docs/` of branch `pgperf-data`');
    // The same event (its recovery was in another store), found again by its marker: never a duplicate.
    expect(
      [...gh.issues.values()].filter(
        (i) => parseEventState(i.body)?.event === `kvm2-haltpoll-fx/${WORKLOAD}`,
      ),
    ).toHaveLength(1);
  }, 600_000);

  it('builds head-ref from source (cache hits on a warm machine) and starts the history of a new store', async () => {
    const cacheDir = testCacheDir();
    // The same fixture repository and commits as the action's build test, so the same cached installs.
    const repo = await preparePgSourceRepo({ major: 18, dir: path.join(cacheDir, 'repos', 'pg18-action') });
    const ran = await nightly({
      repo: repo.dir,
      'head-ref': repo.headRef,
      'head-bin-dir': '',
      'cache-dir': cacheDir,
      store: 'built-store',
      'results-dir': 'built',
    });
    expect(ran.code, ran.stdout).toBe(0);
    expect(ran.stdout).toMatch(/::group::Build/);
    const result = JSON.parse(await readFile(ran.outputs['results-json']!, 'utf8')) as RunResult;
    expect(result.arms.map((a) => [a.label, a.build?.sha])).toEqual([['head', repo.headSha]]);
    expect(result.source?.head).toMatchObject({ ref: repo.headRef, chosenBy: "nightly: input 'head-ref'" });
    // One night is no history yet: nothing regressed, and the summary says the series are too short.
    // One decision for the night: too few runs to analyse is pending (verdict inconclusive), said once.
    expect(ran.outputs).toMatchObject({ verdict: 'inconclusive', regressions: '0', outcome: 'pending' });
    expect(ran.summary).toMatch(/^## pgperf nightly: ❔ Pending: Too few runs to analyse/);
    expect(ran.summary).toMatch(/fewer than 6 runs and (was|were) not analysed yet/);
    const runs = await storedRuns(path.join(tmp, 'built-store'));
    expect(runs.map((r) => r.commits)).toEqual([[{ arm: 'head', ref: repo.headRef, sha: repo.headSha }]]);
  }, 1_200_000);

  it('refuses a nightly without a store, and inputs that name a base, before measuring', async () => {
    const noStore = await nightly({});
    expect(noStore.code).not.toBe(0);
    expect(noStore.stdout).toContain(
      "mode nightly saves every run to the results store and analyses its history: set 'store'",
    );
    const withBase = await nightly({ store: 'x', 'base-ref': 'master~1' });
    expect(withBase.code).not.toBe(0);
    expect(withBase.stdout).toContain(
      "mode nightly measures the branch head alone, against its stored history: remove 'base-ref'",
    );
  });
});
