import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildKey,
  cacheLayout,
  checkFreeSpace,
  defaultCacheDir,
  markComplete,
  mkdirPublic,
  moveIntoPlace,
  readCompleted,
  slotPaths,
  type KeyInput,
} from '../../src/postgres/builds/cache.js';
import { spawn } from 'node:child_process';
import { unlink } from 'node:fs/promises';
import { acquireLock, describeOwner } from '../../src/machine/os/file-lock.js';
import { findCompleted } from '../../src/postgres/builds/slot.js';
import { parseRepo } from '../../src/postgres/builds/source.js';
import type { BuildRecord, BuildRequest } from '../../src/postgres/builds/build-record.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { DEBIAN_12_X64, GCC_12_DEBIAN } from '../helpers/toolchain.js';
import { useTmpDir } from '../helpers/tmp-dir.js';

const input: KeyInput = {
  sha: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
  patchHashes: [],
  extraOptions: [],
  compiler: GCC_12_DEBIAN,
  platform: DEBIAN_12_X64,
  recipe: 1,
};

describe('install cache key', () => {
  it('is the short sha and a hash over everything that decides the build', () => {
    expect(buildKey(input)).toMatch(/^1a2b3c4d5e6f-[0-9a-f]{16}$/);
    expect(buildKey({ ...input })).toBe(buildKey(input));
  });

  it.each<[string, Partial<KeyInput>]>([
    ['sha', { sha: 'ffffffffffffffffffffffffffffffffffffffff' }],
    ['patches', { patchHashes: ['ab'] }],
    ['options', { extraOptions: ['-Db_lto=true'] }],
    ['compiler version', { compiler: { ...input.compiler, version: 'gcc (Debian 12.3.0-1) 12.3.0' } }],
    ['OS release', { platform: { ...input.platform, release: 'debian 13' } }],
    ['architecture', { platform: { ...input.platform, arch: 'arm64' } }],
    ['recipe', { recipe: 2 }],
  ])('changes with the %s', (_what, change) => {
    expect(buildKey({ ...input, ...change })).not.toBe(buildKey(input));
  });

  it('depends on the order patches are applied in', () => {
    expect(buildKey({ ...input, patchHashes: ['a', 'b'] })).not.toBe(
      buildKey({ ...input, patchHashes: ['b', 'a'] }),
    );
  });

  it('does not depend on where the compiler lives', () => {
    expect(buildKey({ ...input, compiler: { ...input.compiler, path: '/opt/gcc' } })).toBe(buildKey(input));
  });
});

describe('cache layout', () => {
  it('defaults: $PGPERF_CACHE_DIR, /var/cache/pgperf for root, else the XDG cache', () => {
    expect(defaultCacheDir({ PGPERF_CACHE_DIR: '/x' }, 0, '/root')).toBe('/x');
    expect(defaultCacheDir({}, 0, '/root')).toBe('/var/cache/pgperf');
    expect(defaultCacheDir({}, 1000, '/home/u')).toBe('/home/u/.cache/pgperf');
    expect(defaultCacheDir({ XDG_CACHE_HOME: '/xdg' }, 1000, '/home/u')).toBe('/xdg/pgperf');
  });

  it('gives each key fixed paths, and a prefix install its own slot', () => {
    const layout = cacheLayout('/c');
    const p = slotPaths(layout, 'k1');
    expect(p).toMatchObject({
      install: '/c/installs/k1',
      src: '/c/builds/k1/src',
      build: '/c/builds/k1/build',
      lock: '/c/locks/k1.lock',
      log: '/c/logs/k1.log',
    });
    const q = slotPaths(layout, 'k1', '/opt/pg');
    expect(q.install).toBe('/opt/pg');
    expect(q.slot).toMatch(/^k1-p[0-9a-f]{8}$/);
    expect(q.work).not.toBe(p.work);
  });
});

describe('cache on disk', () => {
  const tmp = useTmpDir('pgperf-cache-', { perTest: true });

  it('an install counts only once its marker is written, and moves into place in one rename', async () => {
    const staged = path.join(tmp(), 'stage', 'tree');
    await mkdir(path.join(staged, 'bin'), { recursive: true });
    const installDir = path.join(tmp(), 'installs', 'k');
    await moveIntoPlace(staged, installDir);
    expect(await readdir(path.join(installDir))).toEqual(['bin']);
    expect(await readCompleted(installDir)).toBeUndefined();
    await markComplete(installDir, { key: 'k' });
    expect(await readCompleted(installDir)).toMatchObject({ key: 'k' });
    expect((await readdir(installDir)).sort()).toEqual(['.complete', 'bin']);
  });

  it('a lock is exclusive; a second taker waits, saying for whom, until it is released', async () => {
    const file = path.join(tmp(), 'locks', 'k.lock');
    const logger = memoryLogger();
    const { release } = await acquireLock(file, { logger, what: 'another build' });
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ pid: process.pid, host: os.hostname() });
    let second = false;
    const waiting = acquireLock(file, { logger, what: 'another build', pollMs: 20 }).then((r) => {
      second = true;
      return r.release;
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(second).toBe(false);
    expect(logger.lines.join('\n')).toMatch(
      new RegExp(`waiting for another build: locked by pid ${process.pid}`),
    );
    await release();
    const release2 = await waiting;
    expect(second).toBe(true);
    await release2();
    expect(await readdir(path.dirname(file))).toEqual([]);
  });

  it('a build that waited for the lock of another process says so, for whom and how long, and then its cache hit', async () => {
    const layout = cacheLayout(tmp());
    const paths = slotPaths(layout, 'k1');
    // The other pgperf: a live process of its own, whose lock file says who holds the lock since when.
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await mkdirPublic(layout.locks);
      const since = new Date(Date.now() - 21 * 60_000);
      await writeFile(
        paths.lock,
        JSON.stringify({ pid: other.pid, host: os.hostname(), since: since.toISOString() }),
      );
      const logger = memoryLogger();
      const started = Date.now();
      const taking = acquireLock(paths.lock, { logger, what: 'another build of 1a2b3c4 (head)', pollMs: 20 });
      await new Promise((r) => setTimeout(r, 300));
      const owner = `pid ${other.pid} on ${os.hostname()} (holding it since ${since.toISOString().slice(11, 16)} UTC)`;
      expect(logger.lines).toEqual([
        `waiting for another build of 1a2b3c4 (head): locked by ${owner}: ${paths.lock}`,
      ]);
      // It finishes its build (the install and its marker) and releases the lock.
      await mkdir(paths.install, { recursive: true });
      await markComplete(paths.install, { key: 'k1', sha: input.sha, buildSystem: 'meson' } as BuildRecord);
      await unlink(paths.lock);
      const { release, waited } = await taking;
      expect(waited!.owner).toEqual({ pid: other.pid, host: os.hostname(), since: since.toISOString() });
      expect(waited!.seconds).toBeGreaterThanOrEqual(0.3);
      const req = { label: 'head', repo: parseRepo('/src/postgres', '/'), ref: 'master', patches: [] };
      const found = await findCompleted(paths, 'k1', req as unknown as BuildRequest, started, logger, waited);
      await release();
      expect(found!.record).toMatchObject({
        cacheHit: true,
        lockWaitS: Math.round(waited!.seconds * 10) / 10,
      });
      const line = logger.lines[1]!;
      expect(line).toMatch(/^build head: waited 0\.[3-9]s for /);
      expect(line).toContain(
        ` for ${owner} to finish building the same install; then a cache hit (sha 1a2b3c4, meson), `,
      );
      expect(line).toMatch(new RegExp(`, [\\d.]+ s in all: ${paths.install}$`));
    } finally {
      other.kill();
    }
  });

  it("names a lock's owner with the time it took the lock, and the date once that is a day or more ago", () => {
    const now = new Date('2026-11-29T09:00:00Z');
    const owner = { pid: 1234, host: 'runner-1', since: '2026-11-29T08:12:30.000Z' };
    expect(describeOwner(owner, now)).toBe('pid 1234 on runner-1 (holding it since 08:12 UTC)');
    expect(describeOwner({ ...owner, since: '2026-11-27T08:12:30.000Z' }, now)).toBe(
      'pid 1234 on runner-1 (holding it since 2026-11-27 08:12 UTC)',
    );
    expect(describeOwner({ ...owner, since: 'then' }, now)).toBe(
      'pid 1234 on runner-1 (holding it since then)',
    );
  });

  it('many simultaneous takers in one process: each gets the lock in turn, one at a time', async () => {
    const file = path.join(tmp(), 'locks', 'busy.lock');
    let holders = 0;
    let most = 0;
    const takers = Array.from({ length: 8 }, async () => {
      const { release } = await acquireLock(file, { logger: memoryLogger(), what: 'x', pollMs: 5 });
      holders++;
      most = Math.max(most, holders);
      await new Promise((r) => setTimeout(r, 10));
      holders--;
      await release();
    });
    await Promise.all(takers);
    expect(most).toBe(1);
    expect(await readdir(path.dirname(file))).toEqual([]);
  });

  it("a dead owner's lock is stale and taken over", async () => {
    const file = path.join(tmp(), 'k.lock');
    // pid 2^22+1 is above Linux's pid_max limit: never a live process.
    await writeFile(file, JSON.stringify({ pid: 4194305, host: os.hostname(), since: 'then' }));
    const { release } = await acquireLock(file, { logger: memoryLogger(), what: 'x' });
    expect(JSON.parse(await readFile(file, 'utf8')).pid).toBe(process.pid);
    await release();
  });

  // A stale lock that cannot be removed (immutable, which only root can make): an error, not a busy loop.
  it.skipIf(process.getuid?.() !== 0)(
    'a stale lock that cannot be removed ends with an error naming it (needs root: chattr +i)',
    async () => {
      const file = path.join(tmp(), 'k.lock');
      await writeFile(file, 'not an owner');
      execFileSync('chattr', ['+i', file]);
      try {
        await expect(acquireLock(file, { logger: memoryLogger(), what: 'x' })).rejects.toThrow(
          `cannot take the lock ${file}: it was released or stale 20 times in a row and still in the way`,
        );
      } finally {
        execFileSync('chattr', ['-i', file]);
      }
    },
  );

  it('an aborted wait gives up', async () => {
    const file = path.join(tmp(), 'k.lock');
    const { release } = await acquireLock(file, { logger: memoryLogger(), what: 'x' });
    const controller = new AbortController();
    const waiting = acquireLock(file, {
      logger: memoryLogger(),
      what: 'x',
      pollMs: 10,
      signal: controller.signal,
    });
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    await release();
  });

  it('creates cache directories reachable by the user PostgreSQL runs as, whatever the umask', async () => {
    const old = process.umask(0o077);
    try {
      await mkdirPublic(path.join(tmp(), 'a', 'b'));
    } finally {
      process.umask(old);
    }
    expect((await stat(path.join(tmp(), 'a'))).mode & 0o777).toBe(0o755);
    expect((await stat(path.join(tmp(), 'a', 'b'))).mode & 0o777).toBe(0o755);
  });

  it('refuses to build on a disk with too little space, saying how much and what to do', async () => {
    await expect(checkFreeSpace(tmp(), Number.MAX_SAFE_INTEGER)).rejects.toThrow(
      /not enough disk space for a build in .*: [\d.]+ GiB free, a build needs about [\d.]+ GiB\. .*--cache-dir DIR/,
    );
    await expect(checkFreeSpace(tmp(), 1)).resolves.toBeUndefined();
  });
});
