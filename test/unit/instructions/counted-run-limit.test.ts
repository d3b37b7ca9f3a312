/**
 * A counted run has an end: one that takes longer than its limit (a head that makes every transaction a
 * sequential scan, under cachegrind) is stopped and reported as too slow to count, so the workload's timed
 * rounds decide; a stop asked for by the user is passed on as it is.
 */
import { describe, expect, it } from 'vitest';
import {
  TooSlowToCount,
  countedRunLimitS,
  headCountedRun,
  runCounted,
} from '../../../src/run/counted/counted-run-limit.js';
import type { CountedRunSpec } from '../../../src/drivers/common/driver.js';
import type { PgCluster } from '../../../src/postgres/cluster/cluster.js';

/** A client whose counted run ends only when its signal aborts (then it rejects, as pgbench killed would). */
const neverEnding = {
  runTransactions: (_target: unknown, spec: CountedRunSpec) =>
    new Promise<void>((_resolve, reject) =>
      spec.signal!.addEventListener('abort', () => reject(new Error('pgbench killed by SIGTERM'))),
    ),
};
const server = { arm: { label: 'head', binDir: '/x', settings: {} }, cluster: {} as PgCluster };

describe('a counted run', () => {
  it('taking longer than its limit is stopped and said too slow to count, naming the arm', async () => {
    const started = Date.now();
    await expect(runCounted(neverEnding, server, 1200, 1, undefined, 0.2)).rejects.toThrow(
      /^1200 counted transactions took over 0.2 s on arm head: too slow to count .*the timed rounds decide$/,
    );
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("stopped by the user's signal rejects with the client's own error", async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 50);
    await expect(runCounted(neverEnding, server, 1200, 1, stop.signal, 60)).rejects.toThrow(
      'pgbench killed by SIGTERM',
    );
  });

  it('that finishes in time resolves', async () => {
    const quick = { runTransactions: async () => {} };
    await expect(runCounted(quick, server, 200, 1, undefined, 60)).resolves.toBeUndefined();
  });
});

describe("a head's counted-run limit", () => {
  it("follows base's run of as many transactions, within its floor and the absolute limit", () => {
    expect(countedRunLimitS(undefined)).toBe(180); // base not timed yet
    expect(countedRunLimitS(1.2)).toBe(90); // a quick base: the floor, for a loaded runner
    expect(countedRunLimitS(6)).toBe(120); // 20 times base
    expect(countedRunLimitS(60)).toBe(180); // never beyond the absolute limit
  });
});

describe("a head's counted run past its limit", () => {
  /** The attempts of one head run: the head's limits asked for, and what base's run takes now. */
  function attempts(headTakesS: number[], baseNowS: number) {
    const limits: number[] = [];
    const notes: string[] = [];
    let retried = 0;
    return {
      limits,
      notes,
      retried: () => retried,
      runHead: async (limitS: number) => {
        limits.push(limitS);
        const took = headTakesS[limits.length - 1]!;
        if (took > limitS) throw new TooSlowToCount(`took over ${limitS} s`);
      },
      timeBaseNow: async () => baseNowS,
      beforeRetry: async () => {
        retried++;
      },
      note: (m: string) => notes.push(m),
    };
  }

  it('is retried with a larger limit when base got slower too (a load spike), and then counted', async () => {
    const a = attempts([100, 150], 7.5);
    await expect(headCountedRun(3, a)).resolves.toBeUndefined();
    expect(a.limits).toEqual([90, 150]);
    expect(a.retried()).toBe(1);
    expect(a.notes[0]).toMatch(/took 7\.5 s now \(3\.0 s before\): the runner is loaded.*150 s limit/);
  });

  it('is too slow to count when base is about as quick as before (the head does more work)', async () => {
    for (const baseNowS of [3.2, 6]) {
      // 6 s: a 120 s limit, less than 1.5 times the first 90 s: a loaded runner's noise, not a spike.
      const a = attempts([100, 10], baseNowS);
      await expect(headCountedRun(3, a)).rejects.toThrow(TooSlowToCount);
      expect(a.limits).toEqual([90]);
      expect(a.retried()).toBe(0);
    }
  });

  it('is retried once at most, and never past the absolute limit', async () => {
    const a = attempts([100, 500], 30);
    await expect(headCountedRun(3, a)).rejects.toThrow(/took over 180 s/);
    expect(a.limits).toEqual([90, 180]);
    const atLimit = attempts([500], 30);
    await expect(headCountedRun(60, atLimit)).rejects.toThrow(TooSlowToCount);
    expect(atLimit.limits).toEqual([180]);
  });

  it('passes any other failure on at once', async () => {
    const failing = {
      ...attempts([], 1),
      runHead: async () => {
        throw new Error('server closed the connection');
      },
    };
    await expect(headCountedRun(3, failing)).rejects.toThrow('server closed the connection');
  });
});
