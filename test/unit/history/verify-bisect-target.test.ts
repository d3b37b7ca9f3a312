/**
 * A regression issue's bisect marker is trusted only as far as the results store bears it out: the series
 * is there, good and bad are runs of it, good measured first (flows/nightly/verify-bisect-target.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyBisectTarget } from '../../../src/flows/nightly/verify-bisect-target.js';
import type { BisectTarget } from '../../../src/core/history/bisect-marker.js';
import { buildSeries } from '../../../src/core/history/series.js';
import { DirStore } from '../../../src/store/dir/dir-store.js';
import { WORKLOAD, commitSha, noisyHistory } from './noisy-history.js';

let dir: string;
let store: DirStore;
let genuine: BisectTarget;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'verify-bisect-'));
  store = await DirStore.open(dir, { warn: () => {} });
  const runs = noisyHistory({ nights: 30, stepAt: 20, factor: 0.8, clients: [1] });
  for (const run of runs) await store.save(run);
  const series = buildSeries(runs).find((s) => s.key.metric === 'tps')!;
  genuine = {
    series: series.id,
    workload: WORKLOAD,
    clients: 1,
    metric: 'tps',
    fingerprint: series.key.fingerprint,
    good: commitSha(19),
    bad: commitSha(20),
  };
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('verifyBisectTarget', () => {
  it('accepts the commits of a series the store holds, good before bad (full or abbreviated shas)', async () => {
    await expect(verifyBisectTarget(genuine, store, 'issue #1')).resolves.toBeUndefined();
    const short = { ...genuine, good: genuine.good.slice(0, 10), bad: genuine.bad.slice(0, 10) };
    await expect(verifyBisectTarget(short, store, 'issue #1')).resolves.toBeUndefined();
  });

  it('refuses a series the store does not hold', async () => {
    await expect(
      verifyBisectTarget({ ...genuine, series: `${genuine.series}x` }, store, 'issue #2'),
    ).rejects.toThrow(/^issue #2: its series .*x is not in the results store/);
  });

  it('refuses commits that are not runs of the series, naming each', async () => {
    const forged = { ...genuine, good: 'a'.repeat(40), bad: 'b'.repeat(40) };
    await expect(verifyBisectTarget(forged, store, 'issue #3')).rejects.toThrow(
      `issue #3: good aaaaaaaaaaaa and bad bbbbbbbbbbbb are not a run of series ${genuine.series}`,
    );
  });

  it('refuses good measured after bad', async () => {
    const swapped = { ...genuine, good: genuine.bad, bad: genuine.good };
    await expect(verifyBisectTarget(swapped, store, 'issue #4')).rejects.toThrow(
      /issue #4: in the results store, good \w+ was not measured before bad/,
    );
  });
});
