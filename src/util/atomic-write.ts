/**
 * Writing a file so that no reader, crash or concurrent writer ever sees it half-written: a private temp
 * file in the same directory (unique per call, so two writers of one file, even in one process, never
 * share it), fsync, rename over the target. After a crash the previous complete version remains.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

export interface AtomicWriteOptions {
  /** File mode of a new file (before the umask); default 0o666. */
  mode?: number;
}

export async function writeAtomically(
  file: string,
  text: string,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const tmp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  const handle = await open(tmp, 'wx', options.mode ?? 0o666);
  try {
    await handle.writeFile(text);
    await handle.sync();
    await handle.close();
    await rename(tmp, file);
  } catch (e) {
    await handle.close().catch(() => {});
    await rm(tmp, { force: true });
    throw e;
  }
}
