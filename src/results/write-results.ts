import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { RunResult } from './types.js';

/**
 * Writes the results document atomically (temp file, fsync, rename), so a reader or an interrupted
 * run never sees a half-written file: after a crash the previous complete version remains.
 */
export async function writeResults(file: string, result: RunResult): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  const handle = await open(tmp, 'w');
  try {
    await handle.writeFile(`${JSON.stringify(result, null, 2)}\n`);
    await handle.sync();
  } catch (e) {
    await handle.close();
    await rm(tmp, { force: true });
    throw e;
  }
  await handle.close();
  await rename(tmp, file);
}
