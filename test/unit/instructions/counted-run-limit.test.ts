/**
 * A counted run has an end: one that takes longer than its limit (a head that makes every transaction a
 * sequential scan, under cachegrind) is stopped and reported as too slow to count, so the workload's timed
 * rounds decide; a stop asked for by the user is passed on as it is.
 */
import { describe, expect, it } from 'vitest';
import { countedRunLimitS, runCounted } from '../../../src/run/counted/instruction-phase.js';
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
