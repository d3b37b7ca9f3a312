/**
 * `pgperf nightly` end to end with the built CLI: measures the machine's PostgreSQL as the branch head,
 * saves the run to a directory store that already holds a history (real captured pgbench runs with a
 * planted -20% step, test/unit/history/noisy-history.ts), prints the change points, renders the site, and
 * opens the regression issues on a recording fake of the GitHub API on 127.0.0.1.
 */
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGRESSION_LABEL } from '../../src/github/regression-issues.js';
import { DirStore } from '../../src/store/dir-store.js';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { installedBinDir, processesMentioning } from '../helpers/postgres.js';
import { noisyHistory } from '../unit/history/noisy-history.js';
import { runCli } from '../helpers/cli.js';

const root = new URL('../../', import.meta.url).pathname;
let tmp: string;
let gh: FakeGitHub;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-nightly-'));
  await chmod(tmp, 0o755);
  gh = await startFakeGitHub();
  const store = await DirStore.open(path.join(tmp, 'store'), { write: true, warn: () => {} });
  for (const run of noisyHistory()) await store.save(run);
  await store.close();
});
afterAll(async () => {
  await gh?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const pgperf = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(args, { cwd: tmp, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } });

describe('pgperf nightly', () => {
  it('measures, stores, reports the change points, renders the site and opens the regression issues', async () => {
    const ran = await pgperf(
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
        '--site',
        path.join(tmp, 'site'),
        '--repo-url',
        'https://github.com/postgres/postgres',
        '--github-repo',
        'pg/postgres',
        '--tmp-dir',
        tmp,
      ],
      { GITHUB_TOKEN: 'test-token', GITHUB_API_URL: gh.url },
    );
    expect(ran.code, ran.stderr).toBe(0);
    // The run is in the store beside the 40 nights of history, with the commit it measured.
    const store = await DirStore.open(path.join(tmp, 'store'), { warn: () => {} });
    const listed = await store.list();
    await store.close();
    expect(listed).toHaveLength(41);
    expect(listed[0]!.commits).toEqual([expect.objectContaining({ arm: 'head', sha: 'f'.repeat(40) })]);
    // Verdict first: the history's regressions, with their commit ranges.
    expect(ran.stdout).toMatch(/^### Performance history\n\n\*\*\d+ regressions?/);
    expect(await readdir(path.join(tmp, 'site'))).toContain('index.html');
    const issues = [...gh.issues.values()];
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) expect(issue.labels).toEqual([{ name: REGRESSION_LABEL }]);
    expect(ran.stderr).toMatch(/regression issues in pg\/postgres: \d+ opened, 0 updated, 0 closed/);
    expect(processesMentioning(tmp)).toEqual([]);
  }, 300_000);

  it('refuses a bad --github-repo and a missing token before measuring anything', async () => {
    const nightly = (repo: string) =>
      pgperf(['nightly', '--bin', installedBinDir(), '--workload', 'x.yml', '--github-repo', repo]);
    const bad = await nightly('nope');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--github-repo must be OWNER/NAME (e.g. postgres/postgres), got 'nope'");
    const noToken = await nightly('a/b');
    expect(noToken.stderr).toContain('--github-repo needs a token in $GITHUB_TOKEN');
  });
});
