/** The directory store: the shared contract, plus what only a directory has (files to corrupt, permissions). */
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunAs } from '../../src/postgres/cluster/run-as.js';
import { DirStore } from '../../src/store/dir/dir-store.js';
import { defaultStoreDir, openStore } from '../../src/store/open/open-store.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { describeStoreContract } from './store-contract.js';
import { fixtureVariant, minutesAfter, readFixture } from '../../testkit/store-fixture.js';

let tmp: string;
let n = 0;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-store-dir-'));
  await chmod(tmp, 0o755);
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const freshDir = () => path.join(tmp, `store-${++n}`);

describeStoreContract('directory', async () => {
  const dir = freshDir();
  return {
    spec: dir,
    open: (warn = () => {}) => openStore(dir, { home: '/nonexistent', warn, write: true }),
  };
});

describe('directory store', () => {
  const fixture = readFixture();

  it('keeps one file per run and one small index entry per run, and nothing half-written', async () => {
    const dir = freshDir();
    const store = await DirStore.open(dir, { warn: () => {} });
    const a = await store.save(fixtureVariant(fixture, { startedAt: minutesAfter(1) }));
    const b = await store.save(fixtureVariant(fixture, { startedAt: minutesAfter(2) }));
    expect((await readdir(path.join(dir, 'runs'))).sort()).toEqual([`${a.id}.json`, `${b.id}.json`]);
    expect((await readdir(path.join(dir, 'index'))).sort()).toEqual([`${a.id}.json`, `${b.id}.json`]);
    const entry = await readFile(path.join(dir, 'index', `${a.id}.json`), 'utf8');
    expect(JSON.parse(entry)).toEqual(a);
    expect(entry.length).toBeLessThan(1000);
  });

  it('a corrupt run file is reported and skipped; the other runs still list; loading it names the file', async () => {
    const dir = freshDir();
    const store = await DirStore.open(dir, { warn: () => {} });
    const good = await store.save(fixtureVariant(fixture, { startedAt: minutesAfter(1) }));
    // A truncated copy (e.g. a half-synced data branch) without an index entry, and one whose entry survived.
    const text = await readFile(path.join(dir, 'runs', `${good.id}.json`), 'utf8');
    await writeFile(path.join(dir, 'runs', 'broken-1.json'), text.slice(0, 500));
    await writeFile(path.join(dir, 'runs', 'broken-2.json'), '{"schemaVersion": 1}');

    const warnings: string[] = [];
    const reader = await DirStore.open(dir, { warn: (m) => warnings.push(m) });
    expect((await reader.list()).map((r) => r.id)).toEqual([good.id]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^skipping .*runs\/broken-[12]\.json: /);
    expect(warnings.join('\n')).toMatch(/broken-1\.json: .*JSON/);
    expect(warnings.join('\n')).toMatch(/broken-2\.json: not a results document/);
    await expect(reader.load('broken-1')).rejects.toThrow(/runs\/broken-1\.json is corrupt \(not valid JSON/);
  });

  it('the index is rebuilt from the run files: a missing or corrupt entry, or all of them', async () => {
    const dir = freshDir();
    const store = await DirStore.open(dir, { warn: () => {} });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await store.save(fixtureVariant(fixture, { startedAt: minutesAfter(i) }))).id);
    const before = await store.list();
    await writeFile(path.join(dir, 'index', `${ids[0]}.json`), '{"id":');
    await rm(path.join(dir, 'index', `${ids[1]}.json`));
    const after = await store.list();
    expect(after.map((r) => r.id)).toEqual(before.map((r) => r.id));
    expect(JSON.parse(await readFile(path.join(dir, 'index', `${ids[1]}.json`), 'utf8')).id).toBe(ids[1]);

    await rm(path.join(dir, 'index'), { recursive: true });
    expect(await store.rebuildIndex()).toBe(3);
    expect((await readdir(path.join(dir, 'index'))).length).toBe(3);
    expect((await store.list()).map((r) => [r.id, r.cells, r.samples, r.fingerprint])).toEqual(
      before.map((r) => [r.id, r.cells, r.samples, r.fingerprint]),
    );
  });

  it('a stored document of a newer schema version is refused by load (naming the file) and skipped by list', async () => {
    const dir = freshDir();
    const store = await DirStore.open(dir, { warn: () => {} });
    const saved = await store.save(fixture);
    const file = path.join(dir, 'runs', `${saved.id}.json`);
    const doc = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, JSON.stringify({ ...doc, schemaVersion: 3 }));
    await expect(store.load(saved.id)).rejects.toThrow(
      `${file}: schemaVersion 3 is newer than this pgperf reads (1); upgrade pgperf to read it`,
    );
    await rm(path.join(dir, 'index'), { recursive: true });
    const warnings: string[] = [];
    const reader = await DirStore.open(dir, { warn: (m) => warnings.push(m) });
    expect(await reader.list()).toEqual([]);
    expect(warnings).toEqual([
      expect.stringContaining(
        `skipping ${file}: not a results document this pgperf reads: schemaVersion 3 is newer`,
      ),
    ]);
  });

  it('a missing store lists empty without creating anything; a file in the way is a clear error', async () => {
    const dir = freshDir();
    const store = await openStore(dir, { home: '/nonexistent', warn: () => {} });
    expect(await store.list()).toEqual([]);
    await expect(readdir(dir)).rejects.toThrow(/ENOENT/);

    const file = path.join(tmp, 'a-file');
    await writeFile(file, 'x');
    await expect(openStore(file, { home: '/', warn: () => {} })).rejects.toThrow(
      `store directory ${file} is not a directory`,
    );
    await expect(
      openStore(path.join(file, 'store'), { home: '/', warn: () => {}, write: true }),
    ).rejects.toThrow(`store directory ${path.join(file, 'store')} is not writable (ENOTDIR)`);
  });

  it('a directory the user may not write is a clear error before anything is saved', async () => {
    const dir = freshDir();
    await mkdir(path.join(dir, 'runs'), { recursive: true, mode: 0o755 });
    await chmod(dir, 0o755);
    // Root may write anywhere; as root the writer runs as the unprivileged user PostgreSQL runs as.
    const runAs = await resolveRunAs(undefined, { runner: nodeProcessRunner, logger: memoryLogger() });
    if (!runAs) await chmod(dir, 0o555);
    // The writer runs bundled from the public temp dir: the run-as user may not read the clone (a clone in
    // root's home, mode 0700, has node_modules it cannot reach).
    const writer = path.join(tmp, 'store-writer.mjs');
    await build({
      entryPoints: [path.join(new URL('.', import.meta.url).pathname, 'store-writer.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: writer,
      logLevel: 'warning',
      // Bundled CommonJS dependencies (pg) call require(); give the ESM bundle one, as scripts/build.mjs does.
      banner: {
        js: "import { createRequire as __pgperfCreateRequire } from 'node:module';\nconst require = __pgperfCreateRequire(import.meta.url);",
      },
    });
    await chmod(writer, 0o644);
    const ran = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [writer, dir, '1', '1'], {
        cwd: tmp,
        ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
        env: { ...process.env, HOME: tmp },
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(`store directory ${dir} is not writable (EACCES)`);
    expect(await readdir(path.join(dir, 'runs'))).toEqual([]);
  });

  it('the default store is under XDG_DATA_HOME or ~/.local/share', () => {
    expect(defaultStoreDir('/home/u')).toBe('/home/u/.local/share/pgperf/store');
    expect(defaultStoreDir('/home/u', '/data')).toBe('/data/pgperf/store');
    expect(defaultStoreDir('/home/u', 'relative')).toBe('/home/u/.local/share/pgperf/store');
  });

  it('an unknown URL scheme is refused with the password masked', async () => {
    await expect(openStore('mysql://u:hunter2@db/x', { home: '/', warn: () => {} })).rejects.toThrow(
      "store 'mysql://u:***@db/x' is not supported: expected a directory or a postgresql:// URL",
    );
  });
});
