import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { writeAtomically } from '../util/atomic-write.js';
import type { RunResult } from './types.js';

/**
 * Writes the results document atomically, so a reader or an interrupted run never sees a half-written
 * file: after a crash the previous complete version remains.
 */
export async function writeResults(file: string, result: RunResult): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeAtomically(file, `${JSON.stringify(result, null, 2)}\n`);
}
