/**
 * The runner-noise warning through the built action (dist/index.js): mode calibrate fills a directory
 * store with an A/A run, then a benchmark with the same store and a threshold far below what its rounds
 * resolve on this runner says so in the PR comment. The warning comes from the pipeline; the Action only
 * passes its store.
 */
import { chmod, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuiltAction } from '../helpers/action-run.js';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { installedBinDir, processesMentioning } from '../helpers/postgres.js';

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
  workload = path.join(tmp, 'noise.yml');
  await writeFile(
    workload,
    'name: noise\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 4\n',
  );
  await chmod(workload, 0o644);
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
  store: 'store',
};

describe('the action warns when the threshold is below what this runner resolves', () => {
  it('calibrates into the store, then a benchmark with a 0.5% threshold says so in its comment', async () => {
    const calibrated = await runBuiltAction(
      {
        ...common,
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
      },
    );
    expect(calibrated.code, calibrated.stdout).toBe(0);

    // Another path to the same binaries: base and head are then two installs to pgperf (an A/B run).
    const baseBin = path.join(tmp, 'base-bin');
    await symlink(binDir, baseBin);
    const ran = await runBuiltAction(
      {
        ...common,
        workloads: workload,
        mode: 'benchmark',
        'base-bin-dir': baseBin,
        'head-bin-dir': binDir,
        rounds: '4',
        threshold: '0.5',
        'results-dir': 'bench',
      },
      {
        workspace: tmp,
        apiUrl: gh.url,
        event: {
          action: 'synchronize',
          number: PR,
          pull_request: {
            number: PR,
            head: { sha: HEAD_SHA, ref: 'noisy' },
            base: { sha: 'c'.repeat(40), ref: 'master' },
          },
          repository: { full_name: 'pg/postgres' },
        },
        eventName: 'pull_request',
        sha: HEAD_SHA,
      },
    );
    expect(ran.code, ran.stdout).toBe(0);
    const body = (gh.comments.get(PR) ?? []).find((c) => c.user.login === 'pgperf-bot')?.body ?? '';
    expect(body).toMatch(
      /noise(@|&#64;)1: the 0\.5% threshold is below the smallest change this runner resolves with 4 rounds/,
    );
    expect(body).toMatch(/from calibration \d{8}T\d{6}Z-[0-9a-f]{8}/);
  }, 300_000);
});
