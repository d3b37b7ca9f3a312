/**
 * The contract every ResultStore backend passes (run by store-dir.int.test.ts and store-pg.int.test.ts):
 * a real results document saved and loaded back unchanged, upserts, filters, refusals, and two writer
 * processes at once losing nothing.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { environmentFingerprint } from '../../src/machine/fingerprint.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import type { ResultStore } from '../../src/store/store.js';
import { UserError } from '../../src/core/util/errors.js';
import { fixtureVariant, minutesAfter, readFixture } from '../../testkit/store-fixture.js';

export interface StoreUnderTest {
  /** What openStore takes for this store: a directory or a postgresql:// URL. */
  spec: string;
  /** Opens the store (again); warnings go to `warn`. */
  open(warn?: (message: string) => void): Promise<ResultStore>;
  /** A secret in `spec` that must never show in descriptions or messages. */
  secret?: string;
}

const root = new URL('../../', import.meta.url).pathname;

/** Runs store-writer.ts in its own node process; resolves with the ids it saved. */
export function writerProcess(spec: string, n: number, count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(root, 'test/integration/store-writer.ts'),
        spec,
        String(n),
        String(count),
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`writer ${n} exited ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout) as string[]);
    });
  });
}

export function describeStoreContract(name: string, makeStore: () => Promise<StoreUnderTest>): void {
  describe(`ResultStore contract: ${name}`, () => {
    const fixture = readFixture();

    async function withStore<T>(fn: (store: ResultStore, sut: StoreUnderTest) => Promise<T>): Promise<T> {
      const sut = await makeStore();
      const store = await sut.open();
      try {
        return await fn(store, sut);
      } finally {
        await store.close();
      }
    }

    it('saves a real results document and loads it back unchanged, with its id and fingerprint', async () => {
      await withStore(async (store, sut) => {
        const saved = await store.save(fixture);
        const fingerprint = environmentFingerprint(fixture);
        expect(saved).toMatchObject({
          startedAt: fixture.startedAt,
          status: 'complete',
          fingerprint: fingerprint.id,
          commits: [{ arm: 'base' }, { arm: 'head' }],
          workloads: ['smoke', 'select-only'],
          cells: 9,
          samples: 54,
        });
        expect(saved.id).toMatch(/^20261123T132303Z-[0-9a-f]{8}$/);
        expect(fixture.runId).toBeUndefined(); // the caller's object is not changed

        const expected = { ...fixture, runId: saved.id, fingerprint };
        expect(await store.load(saved.id)).toEqual(expected);
        // Persistent: another connection / another process sees the same.
        const again = await sut.open();
        try {
          expect(await again.load(saved.id)).toEqual(expected);
          expect(await again.list()).toEqual([saved]);
        } finally {
          await again.close();
        }
        if (sut.secret) expect(store.description).not.toContain(sut.secret);
      });
    });

    it('saving the same run again replaces it (a run in progress, a file imported twice)', async () => {
      await withStore(async (store) => {
        const running = fixtureVariant(fixture, { status: 'running', onlyWorkload: 'smoke' });
        const first = await store.save(running);
        const second = await store.save(fixture);
        expect(second.id).toBe(first.id);
        const listed = await store.list();
        expect(listed).toHaveLength(1);
        expect(listed[0]).toMatchObject({ status: 'complete', samples: 54, cells: 9 });
        const loaded = await store.load(first.id);
        expect(loaded.samples).toHaveLength(54);
        expect(loaded.status).toBe('complete');
        // An explicit runId is kept.
        const named = await store.save({ ...fixture, runId: 'nightly-42' });
        expect(named.id).toBe('nightly-42');
        expect((await store.load('nightly-42')).runId).toBe('nightly-42');
      });
    });

    it('keeps a run decided without timed rounds (no sample) like any run, listed and loaded back unchanged', async () => {
      await withStore(async (store) => {
        // As the run loop leaves a same-code run: no round, no sample, no cluster (empty settings hash).
        const later = new Date(Date.parse(fixture.startedAt) + 5 * 60_000).toISOString();
        const untimed = fixtureVariant(fixture, { startedAt: later });
        untimed.samples = [];
        untimed.plan.rounds = 0;
        untimed.plan.executed = [];
        untimed.environment.settingsHash = '';
        untimed.compiledCode = [
          { head: 'head', identical: true, files: 120, differingFiles: [], differingCount: 0 },
        ];
        const timed = await store.save(fixture);
        const saved = await store.save(untimed);
        expect(saved).toMatchObject({ status: 'complete', cells: 9, samples: 0 });
        expect((await store.list()).map((r) => [r.id, r.samples])).toEqual([
          [saved.id, 0],
          [timed.id, 54],
        ]);
        const fingerprint = environmentFingerprint(untimed);
        expect(await store.load(saved.id)).toEqual({ ...untimed, runId: saved.id, fingerprint });
        // Saved again with what the answer cost (the pipeline's amend): replaced, still without samples.
        const cost = { buildS: 40, countedS: 0, timedRounds: 0, timedS: 0, wallS: 42 };
        await store.save({ ...untimed, cost });
        expect((await store.load(saved.id)).cost).toEqual(cost);
        expect(await store.list({ workload: 'smoke' })).toHaveLength(2);
      });
    });

    it('an unknown or malformed id is a UserError naming it', async () => {
      await withStore(async (store) => {
        await expect(store.load('20260101T000000Z-00000000')).rejects.toThrow(
          /no run '20260101T000000Z-00000000' in .*pgperf store list/,
        );
        await expect(store.load('../../etc/passwd')).rejects.toThrow(UserError);
        await expect(store.load('../../etc/passwd')).rejects.toThrow(
          /run id '..\/..\/etc\/passwd' is not valid/,
        );
      });
    });

    it('filters by commit, arm, workload, fingerprint and date; newest first; limit', async () => {
      await withStore(async (store) => {
        const sha = (c: string) => c.repeat(40);
        const runs = [
          fixtureVariant(fixture, {
            startedAt: minutesAfter(0),
            base: { ref: 'master', sha: sha('a') },
            head: { ref: 'pr-17', sha: sha('b') },
          }),
          fixtureVariant(fixture, {
            startedAt: minutesAfter(60 * 24),
            base: { ref: 'master', sha: sha('c') },
            head: { ref: 'pr-18', sha: sha('d') },
            onlyWorkload: 'smoke',
          }),
          fixtureVariant(fixture, {
            startedAt: minutesAfter(60 * 48),
            base: { ref: 'master', sha: sha('c') },
            head: { ref: 'pr-19', sha: sha('e') },
            kernel: '6.1.0-13-amd64',
            onlyWorkload: 'select-only',
          }),
        ];
        const ids: string[] = [];
        for (const r of runs) ids.push((await store.save(r)).id);
        const [day0, day1, day2] = ids;
        const listed = async (f: Parameters<ResultStore['list']>[0]) =>
          (await store.list(f)).map((r) => r.id);

        expect(await listed({})).toEqual([day2, day1, day0]);
        expect(await listed({ limit: 2 })).toEqual([day2, day1]);
        expect(await listed({ commit: 'master' })).toEqual([day2, day1, day0]);
        expect(await listed({ commit: 'CCCCCCC' })).toEqual([day2, day1]); // sha prefix, any case
        expect(await listed({ commit: 'bbbb' })).toEqual([day0]);
        expect(await listed({ commit: 'bbbb', arm: 'base' })).toEqual([]);
        expect(await listed({ commit: 'bbbb', arm: 'head' })).toEqual([day0]);
        expect(await listed({ commit: 'pr-19' })).toEqual([day2]);
        expect(await listed({ commit: 'pr-1' })).toEqual([]); // refs match whole
        expect(await listed({ arm: 'nope' })).toEqual([]);
        expect(await listed({ workload: 'smoke' })).toEqual([day1, day0]);
        expect(await listed({ workload: 'select-only' })).toEqual([day2, day0]);
        const fpDay2 = environmentFingerprint(runs[2]!).id;
        const fpOthers = environmentFingerprint(runs[0]!).id;
        expect(fpDay2).not.toBe(fpOthers);
        expect(await listed({ fingerprint: fpDay2.slice(0, 6) })).toEqual([day2]);
        expect(await listed({ fingerprint: fpOthers.toUpperCase() })).toEqual([day1, day0]);
        expect(await listed({ since: '2026-01-02' })).toEqual([day2, day1]);
        expect(await listed({ until: '2026-01-02' })).toEqual([day1, day0]); // a date means the whole day
        expect(await listed({ since: '2026-01-02T00:00:01Z', until: '2026-01-03T00:00:00Z' })).toEqual([
          day2,
        ]);
        expect(await listed({ until: '2025-12-31' })).toEqual([]);

        const summary = (await store.list({ commit: 'pr-17' }))[0]!;
        expect(summary.commits).toEqual([
          { arm: 'base', ref: 'master', sha: sha('a') },
          { arm: 'head', ref: 'pr-17', sha: sha('b') },
        ]);
        expect(summary.workloads).toEqual(['smoke', 'select-only']);

        await expect(store.list({ since: 'yesterday' })).rejects.toThrow(
          /--since must be an ISO date .* got 'yesterday'/,
        );
        await expect(store.list({ fingerprint: 'xyz' })).rejects.toThrow(/--fingerprint .* got 'xyz'/);
        await expect(store.list({ limit: 0 })).rejects.toThrow(/--limit must be a positive integer/);
      });
    });

    it('refuses a document of a newer schema version and stores nothing', async () => {
      await withStore(async (store) => {
        const newer = { ...fixture, schemaVersion: 2 } as unknown as RunResult;
        await expect(store.save(newer)).rejects.toThrow(
          /schemaVersion 2 is newer than this pgperf reads \(1\)/,
        );
        expect(await store.list()).toEqual([]);
      });
    });

    it('two writer processes at once lose nothing', async () => {
      const sut = await makeStore();
      const [a, b] = await Promise.all([writerProcess(sut.spec, 1, 8), writerProcess(sut.spec, 2, 8)]);
      const store = await sut.open();
      try {
        const listed = (await store.list()).map((r) => r.id).sort();
        expect(listed).toEqual([...a!, ...b!].sort());
        expect(listed).toHaveLength(16);
        for (const id of [a![0]!, b![7]!]) expect((await store.load(id)).samples).toHaveLength(54);
      } finally {
        await store.close();
      }
    });
  });
}
