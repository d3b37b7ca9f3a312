/**
 * Dropping the OS page cache before a cold-start run (workload `coldStart`), so that the run's first reads
 * of each block come from the disk rather than from the kernel's copy of the file: `echo 1 >
 * /proc/sys/vm/drop_caches` (clean page-cache pages only; not dentries and inodes). Only root may, and not
 * in a container whose /proc/sys is read-only; then the run starts with only its shared buffers evicted.
 *
 * Dirty pages are not dropped: the caller drops right after the server's shutdown checkpoint, which has
 * written and fsynced every data file, so the relation files' pages are clean by then.
 */
import { writeFile } from 'node:fs/promises';
import { errorMessage } from '../../core/util/errors.js';

export const DROP_CACHES_PATH = '/proc/sys/vm/drop_caches';

export type DropCachesOutcome = { dropped: true } | { dropped: false; reason: string };

/** Drops the clean page cache; never throws: says why it could not. */
export async function dropPageCache(file: string = DROP_CACHES_PATH): Promise<DropCachesOutcome> {
  try {
    await writeFile(file, '1\n');
    return { dropped: true };
  } catch (e) {
    return { dropped: false, reason: `${file} could not be written (${errorMessage(e)}): not root?` };
  }
}
