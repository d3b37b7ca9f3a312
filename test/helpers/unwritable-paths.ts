/**
 * Paths where no directory can be made or written, for the tests of the checks that refuse them: a path
 * under /proc, one under /sys, a file where a directory is expected and a read-only directory, the last two
 * in a temporary directory of the test file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { makeReadOnlyDir, type ReadOnlyDir } from './read-only-dir.js';

export interface UnwritablePaths {
  /** The temporary directory (made now, removed after the tests of the file or describe block). */
  dir: string;
  /** dir/a-file: a file. */
  aFile: string;
  /** dir/read-only, or why this file system cannot make one. */
  readOnly: ReadOnlyDir;
}

/**
 * Makes a temporary directory named `prefix`… holding a file and a read-only directory, and registers an
 * afterAll hook that removes it. Call it at the top of a test file or in a describe block.
 */
export function useUnwritablePaths(prefix: string): UnwritablePaths {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const aFile = path.join(dir, 'a-file');
  writeFileSync(aFile, 'x');
  const readOnly = makeReadOnlyDir(dir);
  afterAll(() => {
    if (readOnly.ok) readOnly.release();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, aFile, readOnly };
}

/**
 * [what it is, the path] for each kind: /proc/pgperf-`name`/x, /sys/pgperf-`name`, the file and the read-only
 * directory (undefined where none could be made: a test of it says so rather than pass in silence).
 */
export function badDirectoryPaths(name: string, paths: UnwritablePaths): Array<[string, string | undefined]> {
  return [
    ['/proc/x', `/proc/pgperf-${name}/x`],
    ['/sys/x', `/sys/pgperf-${name}`],
    ['a file where a directory is expected', paths.aFile],
    ['a read-only directory', paths.readOnly.ok ? paths.readOnly.dir : undefined],
  ];
}
