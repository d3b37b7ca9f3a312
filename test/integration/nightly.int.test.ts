/**
 * `pgperf nightly` end to end with the built CLI, over a sequence of nights: each run measures the machine's
 * PostgreSQL (workload smoke) as the branch head and saves it to a directory store that also holds a
 * synthetic history of workload select-only (real captured pgbench runs with a planted -20% step at 1 and
 * 2 clients, test/unit/history/noisy-history.ts), so what regresses is decided by stored data, never by
 * this machine's noise: the smoke series stay too short to analyse. The regression issues go to a
 * recording fake of the GitHub API on 127.0.0.1. Between the runs the test adds synthetic nights: the
 * regression persisting, then recovered.
 */
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  REGRESSION_LABEL,
  parseEventState,
  seriesMarker,
} from '../../src/flows/nightly/regression-issues.js';
import type { HistoryRun } from '../../src/core/history/series.js';
import { DirStore } from '../../src/store/dir/dir-store.js';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';
import { WORKLOAD, commitSha, noisyHistory } from '../unit/history/noisy-history.js';
import { runCli } from '../helpers/cli.js';

const root = new URL('../../', import.meta.url).pathname;
const REPO_URL = 'https://github.com/postgres/postgres';
const cell = (clients: number) => `kvm2-haltpoll-fx/${WORKLOAD}@${clients}/tps`;
let tmp: string;
let gh: FakeGitHub;

/** 60 synthetic nights at 1 and 2 clients: 20% slower from night 26, back from night 45. */
const nights: HistoryRun[] = noisyHistory({ nights: 60 }).map((run, night) =>
  night < 45
    ? run
    : {
        ...run,
        samples: run.samples.map((s) => ({ ...s, metrics: { ...s.metrics, tps: s.metrics.tps! / 0.8 } })),
      },
);

async function addNights(from: number, to: number): Promise<void> {
  const store = await DirStore.open(path.join(tmp, 'store'), { write: true, warn: () => {} });
  for (const run of nights.slice(from, to)) await store.save(run);
  await store.close();
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-nightly-'));
  await chmod(tmp, 0o755);
  gh = await startFakeGitHub();
  await addNights(0, 40);
});
afterAll(async () => {
  await gh?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const pgperf = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(args, { cwd: tmp, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } });

/** Tonight's `pgperf nightly` of the machine's install, issues to pg/postgres on the fake API. */
const nightly = (extra: string[] = []) =>
  pgperf(
    [
      'nightly',
      '--bin',
      installedBinDir(),
      '--commit',
      'f'.repeat(40),
      '--workload',
      path.join(root, 'workloads/smoke.yml'),
      '--rounds',
      '2',
      '--duration',
      '1',
      '--out',
      path.join(tmp, 'out'),
      '--store',
      path.join(tmp, 'store'),
      '--repo-url',
      REPO_URL,
      '--github-repo',
      'pg/postgres',
      '--tmp-dir',
      tmp,
      ...extra,
    ],
    { GITHUB_TOKEN: 'test-token', GITHUB_API_URL: gh.url },
  );

const issuePosts = () => gh.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/issues'));

describe('pgperf nightly, night after night', () => {
  it('two client counts regressed: one issue listing both cells; the site; exit 1 under the default --fail-on regression', async () => {
    const ran = await nightly(['--site', path.join(tmp, 'site')]);
    expect(ran.code, ran.stderr).toBe(1);
    expect(ran.stderr).toMatch(
      /error: open regression event in the history: select-only \(2 cells, worst tps at [12] clients? -\d+\.\d%\) \(fail-on: regression\)/,
    );
    // The run is in the store beside the 40 nights of history, with the commit it measured.
    const store = await DirStore.open(path.join(tmp, 'store'), { warn: () => {} });
    const listed = await store.list();
    await store.close();
    expect(listed).toHaveLength(41);
    expect(listed[0]!.commits).toEqual([expect.objectContaining({ arm: 'head', sha: 'f'.repeat(40) })]);
    // Verdict first, then the history's change points with their commit ranges.
    expect(ran.stdout.split('\n')[0]).toBe('## pgperf nightly: 🔴 Failed: 1 workload regressed (2 cells)');
    expect(ran.stdout).toContain('Measured ffffffffff.');
    expect(ran.stdout).toMatch(/Regression issues: 1 opened, 0 updated, 0 closed \(#500\)\./);
    expect(ran.stdout).toContain('### Performance history');
    expect(await readdir(path.join(tmp, 'site'))).toContain('index.html');
    expect(gh.issues.size).toBe(1);
    const issue = gh.issues.get(500)!;
    expect(issue.labels).toEqual([{ name: REGRESSION_LABEL }]);
    expect(issue.title).toMatch(
      /^Performance regression: select-only, 2 cells \(worst TPS at [12] clients? -/,
    );
    for (const clients of [1, 2]) {
      expect(issue.body).toContain(seriesMarker(cell(clients)));
      expect(issue.body).toMatch(
        new RegExp(`\\| TPS at ${clients} clients? \\| -\\d+\\.\\d% .*\\| 🔴 regressed \\|`),
      );
    }
    expect(ran.stderr).toContain('regression issues: 1 opened, 0 updated, 0 closed');
    expect(processesMentioning(tmp)).toEqual([]);
  }, 300_000);

  it('the regression persisting: the same issue updated, no new one; --fail-on never exits 0', async () => {
    await addNights(40, 41);
    const before = gh.issues.get(500)!.body;
    const ran = await nightly(['--fail-on', 'never']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout.split('\n')[0]).toBe('## pgperf nightly: ⚠️ Passed: 1 workload regressed (2 cells)');
    expect(ran.stderr).toContain('regression issues: 0 opened, 1 updated, 0 closed');
    expect(gh.issues.size).toBe(1);
    expect(issuePosts()).toHaveLength(1);
    expect(gh.issues.get(500)!.body).not.toBe(before);
    expect(gh.issues.get(500)!.state).toBe('open');
  }, 300_000);

  it('recovered: the issue closed with a comment linking the recovery, exit 0; --fail-on inconclusive fails on the too-short series measured tonight', async () => {
    await addNights(41, 60);
    const ran = await nightly();
    expect(ran.code, ran.stderr).toBe(0);
    // Nothing regressed any more; the series measured tonight are too short to analyse: one pending headline.
    expect(ran.stdout.split('\n')[0]).toMatch(/^## pgperf nightly: ❔ Pending: Too few runs to analyse/);
    expect(ran.stderr).toContain('regression issues: 0 opened, 0 updated, 1 closed');
    const issue = gh.issues.get(500)!;
    expect(issue.state).toBe('closed');
    expect(parseEventState(issue.body)?.state).toBe('recovered');
    const note = gh.comments.get(500)!.at(-1)!.body;
    expect(note).toMatch(/^\*\*Recovered\*\*: no cell of \*\*select-only\*\*/);
    expect(note).toContain(`(${REPO_URL}/commit/${commitSha(45)})`);
    expect(note).toContain('stored run night-045');
    expect(issuePosts()).toHaveLength(1);

    // The smoke series measured tonight have 4 runs, fewer than the 6 an analysis needs: undecided.
    const strict = await nightly(['--fail-on', 'inconclusive']);
    expect(strict.code, strict.stderr).toBe(1);
    expect(strict.stderr).toMatch(/error: \d+ series measured tonight have too few runs to be analysed yet/);
    expect(gh.issues.get(500)!.state).toBe('closed');
    expect(processesMentioning(tmp)).toEqual([]);
  }, 600_000);

  it('refuses bad flags before measuring anything, and documents its exit codes', async () => {
    const nightlyWith = (...args: string[]) =>
      pgperf(['nightly', '--bin', installedBinDir(), '--workload', 'x.yml', ...args]);
    const bad = await nightlyWith('--github-repo', 'nope');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--github-repo must be OWNER/NAME (e.g. postgres/postgres), got 'nope'");
    const noToken = await nightlyWith('--github-repo', 'a/b');
    expect(noToken.stderr).toContain('--github-repo needs a token in $GITHUB_TOKEN');
    const failOn = await nightlyWith('--fail-on', 'sometimes');
    expect(failOn.code).toBe(2);
    expect(failOn.stderr).toContain(
      "--fail-on must be one of regression, inconclusive, never, got 'sometimes'",
    );
    const commit = await pgperf(['nightly', '--ref', 'master', '--commit', 'abc', '--workload', 'x.yml']);
    expect(commit.code).toBe(2);
    expect(commit.stderr).toContain('--commit abc names the commit of --bin');
    const help = await pgperf(['nightly', '--help']);
    expect(help.stdout).toMatch(/--fail-on <when>/);
    expect(help.stdout).toMatch(/Exit codes:\n {2}0 {2}passed: no open regression event/);
    expect(help.stdout).toMatch(/\n {2}3 {2}the run could not complete/);
  });
});
