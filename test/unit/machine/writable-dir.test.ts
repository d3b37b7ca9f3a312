/**
 * Directories made and proven writable before anything starts, on the real file system: /proc and /sys
 * (node 20's recursive mkdir spins for ever under /proc; makeDirectory fails at once with the OS error), a
 * file in the way, a read-only directory (mode 0555, and immutable as root), and the ordinary case, where
 * the probe passes and leaves nothing behind (no probe file, no directory it made).
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkWritableDirectory,
  makeDirectory,
  probeDirectory,
} from '../../../src/machine/os/writable-dir.js';
import { useUnwritablePaths } from '../../helpers/unwritable-paths.js';

const { dir: tmp, aFile, readOnly } = useUnwritablePaths('pgperf-writable-dir-');

/** Settles `p` or fails after `ms`: what node's recursive mkdir under /proc never does. */
async function within<T>(ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('makeDirectory', () => {
  it('makes every missing level and returns the first one it made; an existing directory is left alone', async () => {
    const deep = path.join(tmp, 'made', 'a', 'b');
    expect(await makeDirectory(deep)).toBe(path.join(tmp, 'made'));
    expect(statSync(deep).isDirectory()).toBe(true);
    expect(await makeDirectory(deep)).toBeUndefined();
  });

  it('public: each directory it makes is 0755 whatever the umask', async () => {
    const before = process.umask(0o077);
    try {
      await makeDirectory(path.join(tmp, 'public', 'x'), { public: true });
    } finally {
      process.umask(before);
    }
    expect(statSync(path.join(tmp, 'public')).mode & 0o777).toBe(0o755);
    expect(statSync(path.join(tmp, 'public', 'x')).mode & 0o777).toBe(0o755);
  });

  it.each([
    ['/proc/pgperf-x/results', 'ENOENT'],
    ['/sys/pgperf-x', /^(EPERM|EACCES|EROFS)$/],
    [path.join(aFile, 'sub'), 'ENOTDIR'],
  ])('%s fails at once with %s (never a retry loop)', async (dir, code) => {
    const error = await within(2000, makeDirectory(dir)).then(
      () => undefined,
      (e: unknown) => e as NodeJS.ErrnoException,
    );
    expect(error?.code).toMatch(code);
  });
});

describe('probeDirectory / checkWritableDirectory', () => {
  it('an ordinary path passes and leaves nothing behind: no probe file, and the directories it made are gone', async () => {
    const dir = path.join(tmp, 'out', 'results');
    expect(await probeDirectory(dir)).toBeUndefined();
    expect(() => statSync(path.join(tmp, 'out'))).toThrow(/ENOENT/);
    await makeDirectory(dir);
    expect(await probeDirectory(dir)).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a refused path leaves nothing it made either', async () => {
    const dir = path.join(tmp, 'partly', 'made', 'x');
    writeFileSync(path.join(tmp, 'partly-file'), 'x');
    expect(await probeDirectory(path.join(tmp, 'partly-file', 'y'))).toMatchObject({ code: 'ENOTDIR' });
    expect(await probeDirectory(dir, { create: false })).toMatchObject({ missing: true });
    expect(() => statSync(path.join(tmp, 'partly'))).toThrow(/ENOENT/);
  });

  it.each([
    [
      '/proc/pgperf-x',
      /^--out \/proc\/pgperf-x: cannot create \/proc\/pgperf-x: ENOENT \(no such file or directory\); \/proc is the kernel's proc file system, not a place for files: choose a directory on a disk; expected a directory for the results \(created if missing\)$/,
    ],
    [
      '/sys/pgperf-x',
      /^--out \/sys\/pgperf-x: cannot create \/sys\/pgperf-x: E(PERM|ACCES|ROFS) \(.+\); \/sys is the kernel's sysfs file system, not a place for files/,
    ],
    [aFile, /^--out .*\/a-file: is a file; expected a directory for the results \(created if missing\)$/],
    [
      path.join(aFile, 'sub'),
      /^--out .*\/a-file\/sub: cannot create it: .*\/a-file is a file, not a directory \(ENOTDIR\); expected/,
    ],
  ])('%s is refused naming the flag, the path and the OS error', async (dir, message) => {
    const started = Date.now();
    await expect(
      checkWritableDirectory(dir, {
        what: '--out',
        expected: 'a directory for the results (created if missing)',
      }),
    ).rejects.toThrow(message);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it.skipIf(!readOnly.ok)(
    `a read-only directory: no file can be created in it${readOnly.ok ? '' : ` (skipped: ${readOnly.ok === false ? readOnly.why : ''})`}`,
    async () => {
      const dir = (readOnly as { dir: string }).dir;
      const found = await probeDirectory(dir);
      expect(found?.code).toMatch(/^(EACCES|EPERM|EROFS)$/);
      expect(found?.text).toContain(`cannot create a file in ${dir}: `);
      expect(found?.text).toMatch(/: E(ACCES|PERM|ROFS) \(/);
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it('create: false refuses a missing directory instead of making it', async () => {
    const dir = path.join(tmp, 'never-made');
    expect(await probeDirectory(dir, { create: false })).toMatchObject({ code: 'ENOENT', missing: true });
    expect(() => statSync(dir)).toThrow(/ENOENT/);
  });
});
