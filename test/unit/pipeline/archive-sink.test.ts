/**
 * The store's copy of a run records what its answer cost (#38 item 4: the history site plots it from the
 * store): the run loop's finish saves the run, the pipeline's amendment saves it again with its cost under
 * the same id, into a real directory store; a run never saved is not saved by the amendment.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { archiveSink } from '../../../src/flows/compare/pipeline/archive-sink.js';
import { answerCost } from '../../../src/core/results/answer-cost.js';
import { loadStoredRuns } from '../../../src/flows/history/load-runs.js';
import { analyseHistory } from '../../../src/core/history/history-analysis.js';
import { DirStore } from '../../../src/store/dir/dir-store.js';
import { document, syntheticRun } from '../../../testkit/synthetic-run.js';

let tmp: string;
let store: DirStore;

beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-archive-sink-'));
  store = await DirStore.open(path.join(tmp, 'store'), { write: true, warn: () => {} });
});

afterEach(async () => {
  await store.close();
  await rm(tmp, { recursive: true, force: true });
});

describe('the store as a sink of the run', () => {
  it('saves the finished run, then the same run with what its answer cost', async () => {
    const archive = archiveSink(store);
    const measured = syntheticRun({ seed: 5, rounds: 3, workloads: { 'select-only': [1] } });
    await archive.sink.finish(measured);
    const id = archive.saved!.id;
    expect((await store.load(id)).cost).toBeUndefined();
    const cost = answerCost(measured, { buildS: 12, countedS: 30, timedS: 60, wallS: 105 });
    await archive.amend({ ...measured, cost });
    expect(archive.saved!.id).toBe(id);
    expect(archive.error).toBeUndefined();
    expect(await store.list()).toHaveLength(1);
    expect((await store.load(id)).cost).toEqual(cost);
    // What the history site plots.
    expect(analyseHistory(await loadStoredRuns(store)).costs.points.map((p) => p.cost.wallS)).toEqual([105]);
  });

  it('does not save by the amendment a run it never saved', async () => {
    const archive = archiveSink(store);
    const nothing = document(['base', 'head'], { w: [1] }, 5, []);
    await archive.sink.finish(nothing);
    await archive.amend({
      ...nothing,
      cost: { buildS: 0, countedS: 0, timedRounds: 0, timedS: 0, wallS: 2 },
    });
    expect(archive.saved).toBeUndefined();
    expect(await store.list()).toEqual([]);
  });

  it('says when the store took the run but not its cost', async () => {
    const measured = syntheticRun({ seed: 5, rounds: 3, workloads: { 'select-only': [1] } });
    let calls = 0;
    const archive = archiveSink({
      description: 'the flaky store',
      save: async () => {
        if (++calls > 1) throw new Error('disk full');
        return { id: 'run-1' };
      },
    });
    await archive.sink.finish(measured);
    await archive.amend(measured);
    expect(archive.saved).toEqual({ id: 'run-1' });
    expect(archive.error).toBe(
      'could not save what the answer cost (the run is saved as run-1 without it) to the flaky store: disk full',
    );
  });
});
