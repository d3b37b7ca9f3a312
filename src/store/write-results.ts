import path from 'node:path';
import { FileWriteError, nodeWriteFs, writeAtomically, type WriteFs } from '../machine/os/atomic-write.js';
import type { RunResult } from '../core/results/result-types.js';

/** The results document as written: pretty JSON with a final newline. */
export function resultsText(result: RunResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

/**
 * Writes the results document atomically and durably (temp file, fsync, rename, fsync of the directory),
 * so a reader or an interrupted run never sees a half-written file: after a crash or a failed write the
 * previous complete version remains. Throws a FileWriteError naming the file and the errno.
 */
export async function writeResults(
  file: string,
  result: RunResult | string,
  fs: WriteFs = nodeWriteFs,
): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true }).catch((e: unknown) => {
    throw new FileWriteError(file, e, `its directory ${path.dirname(file)} could not be created`);
  });
  await writeAtomically(file, typeof result === 'string' ? result : resultsText(result), { fs });
}
