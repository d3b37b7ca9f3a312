/**
 * The runner-noise warning through the built action (dist/index.js): mode calibrate fills a directory
 * store with an A/A run, then a benchmark with the same store and a threshold far below what its rounds
 * resolve on this runner says so in the PR comment. The warning comes from the pipeline; the Action only
 * passes its store.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuiltAction } from '../helpers/action-run.js';
import { pullRequestEvent } from '../helpers/action-events.js';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { writeWorkloadFile } from '../helpers/workload-file.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';

const binDir = installedBinDir();
const PR = 7;
const HEAD_SHA = 'e'.repeat(40);
let tmp: string;
let gh: FakeGitHub;
let workload: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-e2e-noise-'));
  await chmod(tmp, 0o755);
  gh = await startFakeGitHub();
  workload = await writeWorkloadFile(
    tmp,
    'noise.yml',
    'name: noise\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 4\n',
  );
});
afterAll(async () => {
  await gh?.close();
  expect(processesMentioning(tmp)).toEqual([]);
  await rm(tmp, { recursive: true, force: true });
});

const common = {
  workloads: '',
  duration: '1',
  alpha: '0.05',
  'fail-on': 'never',
  comment: 'true',
  'commit-status': 'false',
  'github-token': 'test-token',
};

/** mode calibrate, then a benchmark with a threshold far below what 3 rounds resolve; the PR comment. */
async function calibrateThenBenchmark(
  store: Record<string, string>,
  env: NodeJS.ProcessEnv = {},
): Promise<string> {
  const calibrated = await runBuiltAction(
    {
      ...common,
      ...store,
      workloads: workload,
      mode: 'calibrate',
      'head-bin-dir': binDir,
      rounds: '4',
      force: 'true',
    },
    {
      workspace: tmp,
      apiUrl: gh.url,
      event: { schedule: '5 3 * * 0', repository: { full_name: 'pg/postgres' } },
      eventName: 'schedule',
      sha: 'c'.repeat(40),
      env,
    },
  );
  expect(calibrated.code, calibrated.stdout).toBe(0);

  // Another path to the same binaries: base and head are then two installs to pgperf (an A/B run).
  const baseBin = path.join(tmp, 'base-bin');
  await symlink(binDir, baseBin).catch(() => {});
  const ran = await runBuiltAction(
    {
      ...common,
      ...store,
      workloads: workload,
      mode: 'benchmark',
      'base-bin-dir': baseBin,
      'head-bin-dir': binDir,
      // 3 rounds can never be significant (nor inside ±0.5%): the cell stays inconclusive, so it is warned.
      rounds: '3',
      force: 'true',
      threshold: '0.5',
      // The timed metric alone: counted by default, unchanged counts may pass the cell on steady evidence.
      instructions: 'false',
      'results-dir': 'bench',
    },
    {
      workspace: tmp,
      apiUrl: gh.url,
      event: pullRequestEvent({ number: PR, headSha: HEAD_SHA, headRef: 'noisy' }),
      eventName: 'pull_request',
      sha: HEAD_SHA,
      env,
    },
  );
  expect(ran.code, ran.stdout).toBe(0);
  // By construction: 3 pairs give a signed-rank p of at least 0.25 and a 90% interval of at most 75%
  // confidence, so the cell is neither changed, nor no-change, nor a likely regression.
  expect(ran.outputs.verdict).toBe('inconclusive');
  return (gh.comments.get(PR) ?? []).find((c) => c.user.login === 'pgperf-bot')?.body ?? '';
}

const WARNING =
  /noise(@|&#64;)1: the 0\.5% threshold is below what this runner resolves with 3 rounds \(none: they cannot reach significance/;
const SOURCE = /from calibration \d{8}T\d{6}Z-[0-9a-f]{8}/;

describe('the action warns when the threshold is below what this runner resolves', () => {
  it('calibrates into the store, then a benchmark with a 0.5% threshold says so in its comment', async () => {
    const body = await calibrateThenBenchmark({ store: 'store' });
    expect(body).toMatch(WARNING);
    expect(body).toMatch(SOURCE);
  }, 300_000);

  it('reads the noise from a data branch (store-branch) just the same', async () => {
    const remote = path.join(tmp, 'remote.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    // The Action pushes to https://x-access-token:TOKEN@github.com/pg/postgres.git: here, the bare repo.
    const home = path.join(tmp, 'home');
    await mkdir(home);
    await writeFile(
      path.join(home, '.gitconfig'),
      `[url "${remote}"]\n\tinsteadOf = https://github.com/pg/postgres.git\n`,
    );
    gh.comments.delete(PR);
    const body = await calibrateThenBenchmark({ store: '', 'store-branch': 'pgperf-data' }, { HOME: home });
    expect(body).toMatch(WARNING);
    expect(body).toMatch(SOURCE);
  }, 300_000);
});
