import { describe, expect, it } from 'vitest';
import type { ShardFile } from '../../../src/flows/consolidate/shard-merge.js';
import {
  outstandingShards,
  selectShards,
  waitForShards,
} from '../../../src/flows/consolidate/gather-shards.js';
import type { RunResult } from '../../../src/core/results/result-types.js';
import { memoryLogger } from '../../../src/core/util/logger.js';

const doc = (
  index: number,
  opts: { planId?: string; cpu?: string; startedAt?: string; status?: RunResult['status'] } = {},
) =>
  ({
    startedAt: opts.startedAt ?? '2026-11-23T10:00:00Z',
    status: opts.status ?? 'complete',
    fingerprint: { id: opts.cpu ?? 'aaaaaaaaaaaaaaaa', facts: {} },
    plan: {
      seed: 7,
      shard: { planId: opts.planId ?? 'p1', index, count: 3, allCells: [] },
    },
  }) as unknown as RunResult;
const file = (name: string, result: RunResult): ShardFile => ({ file: name, result });

describe('selectShards', () => {
  it('keeps the files, adds stored shards no file covers, and of a shard stored twice the newest', () => {
    const sel = selectShards(
      [file('a/results.json', doc(1))],
      [
        file('store run s1', doc(1)),
        file('store run s2old', doc(2, { startedAt: '2026-11-23T09:00:00Z' })),
        file('store run s2new', doc(2, { startedAt: '2026-11-23T11:00:00Z' })),
        file('store run other', doc(3, { planId: 'p2' })),
      ],
    );
    expect(sel.planId).toBe('p1');
    expect(sel.shards.map((s) => s.file)).toEqual(['a/results.json', 'store run s2new']);
    expect(sel.notes).toEqual(['store run s2old: an older run of shard 2; left out']);
    expect(outstandingShards(sel.shards)).toEqual(['shard 3 of 3 on machine class aaaaaaaaaaaaaaaa']);
  });

  it('leaves out files of another plan than plan-id, saying so; refuses an ambiguous store', () => {
    const sel = selectShards([file('x.json', doc(1, { planId: 'p2' }))], [], 'p1');
    expect(sel.shards).toEqual([]);
    expect(sel.notes).toEqual(['x.json: plan p2, not p1; left out']);
    expect(() => selectShards([], [file('s1', doc(1)), file('s2', doc(1, { planId: 'p2' }))])).toThrow(
      "the store holds shards of 2 plans for this commit (p1, p2): set 'plan-id'",
    );
  });

  it('counts a running shard as outstanding, per machine class', () => {
    const shards = [1, 2, 3].map((i) => file(`f${i}`, doc(i, { status: i === 2 ? 'running' : 'complete' })));
    shards.push(file('g1', doc(1, { cpu: 'bbbbbbbbbbbbbbbb' })));
    expect(outstandingShards(shards)).toEqual([
      'shard 2 of 3 on machine class aaaaaaaaaaaaaaaa',
      'shards 2, 3 of 3 on machine class bbbbbbbbbbbbbbbb',
    ]);
    expect(outstandingShards([])).toEqual(['every shard (none found)']);
  });
});

describe('waitForShards', () => {
  it('polls until nothing is outstanding, or returns what is missing at the deadline', async () => {
    let t = 0;
    const deps = { logger: memoryLogger(), now: () => t, sleep: async (ms: number) => void (t += ms) };
    let calls = 0;
    const arriving = async () => {
      calls++;
      return selectShards(
        [1, 2, 3].slice(0, calls).map((i) => file(`f${i}`, doc(i))),
        [],
      );
    };
    const done = await waitForShards(arriving, { timeoutS: 60, pollS: 10 }, deps);
    expect(done.outstanding).toEqual([]);
    expect(calls).toBe(3);
    t = 0;
    const never = async () => selectShards([file('f1', doc(1))], []);
    const late = await waitForShards(never, { timeoutS: 25, pollS: 10 }, deps);
    expect(late.outstanding).toEqual(['shards 2, 3 of 3 on machine class aaaaaaaaaaaaaaaa']);
    expect(t).toBe(25_000);
  });
});
