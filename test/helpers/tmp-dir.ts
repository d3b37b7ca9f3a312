/** A temporary directory for a test file (or a describe block), made before its tests and removed after. */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { killProcessesMentioning } from '../../testkit/postgres.js';

export interface TmpDirOptions {
  /** Stop any process still naming the directory (a server a failed test left behind) before removing it. */
  killLeftovers?: boolean;
  /** A fresh directory for every test instead of one for all of them. */
  perTest?: boolean;
}

/**
 * Registers hooks that make a directory under the system's temp dir, open to all (0755: the run-as user
 * must reach the clusters inside), and remove it afterwards. Call it before any hook that uses the
 * directory; the returned function gives its path inside tests and hooks.
 */
export function useTmpDir(prefix: string, options: TmpDirOptions = {}): () => string {
  let dir: string | undefined;
  const [before, after] = options.perTest ? [beforeEach, afterEach] : [beforeAll, afterAll];
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), prefix));
    await chmod(dir, 0o755);
  });
  after(async () => {
    if (dir === undefined) return;
    if (options.killLeftovers) killProcessesMentioning(dir);
    await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return () => {
    if (dir === undefined)
      throw new Error(`${prefix}*: the temporary directory exists only in tests and hooks`);
    return dir;
  };
}
