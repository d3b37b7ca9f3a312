/**
 * Checks of `pgperf run` flags that need the file system, made before anything starts (no build, no server,
 * no temp dir). Each error names the flag, the bad value, the OS error and what is expected.
 */
import os from 'node:os';
import { UserError } from '../../core/util/errors.js';
import { checkWritableDirectory, probeDirectory } from '../../machine/os/writable-dir.js';

/**
 * --tmp-dir (default: the OS temp dir, $TMPDIR) must be an existing directory pgperf can create files in: its
 * clusters' private directories go inside.
 */
export async function checkTmpDir(dir: string | undefined): Promise<void> {
  const what = dir === undefined ? `the temp directory (--tmp-dir not given, $TMPDIR or /tmp)` : '--tmp-dir';
  const target = dir ?? os.tmpdir();
  const found = await probeDirectory(target, { create: false });
  if (!found) return;
  if (found.missing)
    throw new UserError(
      `${what} ${target}: no such directory (ENOENT); create it or choose another (e.g. /tmp)`,
    );
  if (found.isFile)
    throw new UserError(`${what} ${target}: not a directory; expected a directory (e.g. /tmp)`);
  throw new UserError(
    `${what} ${target}: ${found.text}; expected a directory pgperf can create files in (e.g. /tmp)`,
  );
}

/**
 * --out (or `flag`) must be a directory pgperf can write, or not exist yet: it is created, and a file is
 * created in it and removed, before anything is built or started. An existing file is refused.
 */
export async function checkOutDir(
  dir: string,
  flag = '--out',
  expected = 'a directory for the results (created if missing)',
): Promise<void> {
  await checkWritableDirectory(dir, { what: flag, expected });
}
