/**
 * The runner canary and missing nights through the built CLI (dist/cli.js; `node scripts/build.mjs` first)
 * with real PostgreSQL and pgbench: a store holding 40 nights of a machine whose select-only and whose
 * frozen canary build both slowed down the same night (made from real runs of a noisy runner,
 * test/fixtures/history/README.md), then tonight's `pgperf nightly --canary-bin --expect-every 24` with
 * issues on the fake GitHub API on loopback. The regression is suspect (pending, exit 0, said in the report
 * and its issue), the nights that machine missed open an alert issue, and tonight's canary is stored as such.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_LABEL } from '../../src/flows/nightly/alert-issues.js';
import { REGRESSION_LABEL } from '../../src/flows/nightly/regression-issues.js';
import type { HistoryRun } from '../../src/core/history/series.js';
import { DirStore } from '../../src/store/dir/dir-store.js';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { installedBinDir } from '../../testkit/postgres.js';
import { noisyHistory } from '../unit/history/noisy-history.js';
import { runCli } from '../helpers/cli.js';

const root = new URL('../../', import.meta.url).pathname;
let tmp: string;
let gh: FakeGitHub;

const canaryOf = (runs: readonly HistoryRun[]): HistoryRun[] =>
  runs.map((r) => ({
    ...r,
    runId: `canary-${r.runId}`,
    source: { ...r.source, head: { ref: 'canary' }, canary: true },
  }));

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-canary-'));
  await chmod(tmp, 0o755);
  gh = await startFakeGitHub();
  const store = await DirStore.open(path.join(tmp, 'store'), { write: true, warn: () => {} });
  const head = noisyHistory({ nights: 40, stepAt: 26 });
  const canary = canaryOf(noisyHistory({ nights: 40, stepAt: 26, factor: 0.75 }));
  for (const run of [...head, ...canary]) await store.save(run);
  await store.close();
});
afterAll(async () => {
  await gh?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('pgperf nightly with a runner canary and an expected cadence', () => {
  it('the regression of the night the canary moved is suspect; the missed nights open an alert issue', async () => {
    const bin = installedBinDir();
    const ran = await runCli(
      [
        'nightly',
        ...['--bin', bin, '--commit', 'f'.repeat(40), '--canary-bin', bin, '--expect-every', '24'],
        ...['--workload', path.join(root, 'workloads/smoke.yml'), '--rounds', '2', '--duration', '1'],
        ...['--out', path.join(tmp, 'out'), '--store', path.join(tmp, 'store'), '--tmp-dir', tmp],
        ...['--github-repo', 'pg/postgres'],
      ],
      {
        cwd: tmp,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, GITHUB_TOKEN: 't', GITHUB_API_URL: gh.url },
      },
    );
    // Suspect and alerted: pending, not failed, not green.
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toMatch(
      /nightly: PENDING: Suspect regression: runner drift: 1 suspect regression event/,
    );
    // The summary's title is the night's one decision, as the log says it.
    expect(ran.stdout.split('\n')[0]).toBe('## pgperf nightly: ❔ Pending: Suspect regression: runner drift');
    expect(ran.stdout).toContain('suspect: the runner canary (a frozen build) moved');
    expect(ran.stdout).toMatch(
      /⚠️ Alert: no nightly run on kvm2-haltpoll-fx since 2026-11-09: \d+ expected run\(s\) missing/,
    );

    const issues = [...gh.issues.values()];
    const alert = issues.find((i) => i.labels.some((l) => l.name === ALERT_LABEL));
    expect(alert?.title).toBe('pgperf: nightly history alerts on kvm2-haltpoll-fx');
    expect(alert?.body).toContain('no nightly run on kvm2-haltpoll-fx since 2026-11-09');
    const regression = issues.find((i) => i.labels.some((l) => l.name === REGRESSION_LABEL));
    expect(regression?.body).toMatch(/⚠️ TPS at [12] clients?: suspect: the runner canary/);

    // Tonight's canary was measured with the same workload and stored as the canary.
    const store = await DirStore.open(path.join(tmp, 'store'), { warn: () => {} });
    const listed = await store.list();
    const tonight = await Promise.all(listed.slice(0, 2).map((r) => store.load(r.id)));
    await store.close();
    expect(tonight.map((r) => Boolean(r.source?.canary)).sort()).toEqual([false, true]);
    expect(tonight.every((r) => r.status === 'complete')).toBe(true);
  }, 240_000);
});
