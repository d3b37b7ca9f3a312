/**
 * Writing a file so that no reader, crash or concurrent writer ever sees it half-written: a private temp
 * file in the same directory (unique per call, so two writers of one file, even in one process, never
 * share it), fsync, rename over the target, fsync the directory (so that the rename itself survives a
 * power loss). After a crash or a failed write the previous complete version remains, and the temp file
 * is removed.
 *
 * Every failure is a FileWriteError naming the file and the errno ("could not write /r/results.json:
 * ENOSPC (no space left on device)"); the file system is reached through WriteFs, so tests can make any
 * step fail.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { UserError } from '../../core/util/errors.js';
import { describeOsError, makeDirectory } from './writable-dir.js';

/** An open file as the writers here use it (node's FileHandle is one). */
export interface WriteHandle {
  /** Writes all of `data` at the current position (the end, for a file opened with 'a'). */
  writeFile(data: string | Uint8Array): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** The file-system calls of an atomic write (and of the results sink's reserve, src/run/sink.ts). */
export interface WriteFs {
  /** 'wx': create, failing if it exists; 'w': create or truncate; 'a': append; 'r': read (a directory, to fsync it). */
  open(file: string, flags: 'wx' | 'w' | 'a' | 'r', mode?: number): Promise<WriteHandle>;
  rename(from: string, to: string): Promise<void>;
  rm(file: string, options: { force: true }): Promise<void>;
  mkdir(dir: string, options: { recursive: true }): Promise<unknown>;
}

/**
 * The real file system (node:fs/promises); mkdir -p is makeDirectory (writable-dir.ts), which fails where
 * node's recursive mkdir spins forever (a path under /proc).
 */
export const nodeWriteFs: WriteFs = {
  open: (file, flags, mode) => open(file, flags, mode),
  rename: (from, to) => rename(from, to),
  rm: (file, options) => rm(file, options),
  mkdir: (dir) => makeDirectory(dir),
};

/**
 * A write that did not land: names the file, the errno and what failed. `code` is the errno's name (as on
 * node's own errors, so `e.code === 'ENOSPC'` checks keep working), `cause` the original error.
 */
export class FileWriteError extends UserError {
  readonly file: string;
  readonly code: string | undefined;
  /** What failed or what it means, beyond the errno ("the temp file ... could not be created"). */
  readonly details: readonly string[];

  /** `cause` may itself be a FileWriteError: its errno and details are kept, `detail` is added. */
  constructor(file: string, cause: unknown, detail?: string) {
    const inner = cause instanceof FileWriteError ? cause : undefined;
    const errno = inner ? inner.cause : cause;
    const details = [...(inner?.details ?? []), ...(detail ? [detail] : [])];
    const code = errnoCode(errno);
    super(`could not write ${file}: ${[describeOsError(errno), ...details].join('; ')}${hintFor(code)}`);
    this.name = 'FileWriteError';
    this.file = file;
    this.code = code;
    this.details = details;
    this.cause = errno;
  }
}

export interface AtomicWriteOptions {
  /** File mode of a new file (before the umask); default 0o666. */
  mode?: number;
  /** The file system (default: the real one). */
  fs?: WriteFs;
}

/** Writes `text` to `file` atomically and durably; throws a FileWriteError, the old file intact. */
export async function writeAtomically(
  file: string,
  text: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const fs = options.fs ?? nodeWriteFs;
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let handle: WriteHandle;
  try {
    handle = await fs.open(tmp, 'wx', options.mode ?? 0o666);
  } catch (e) {
    throw new FileWriteError(file, e, `the temp file ${tmp} could not be created`);
  }
  try {
    await handle.writeFile(text);
    await handle.sync();
    await handle.close();
    await fs.rename(tmp, file);
  } catch (e) {
    await handle.close().catch(() => {});
    await fs.rm(tmp, { force: true }).catch(() => {});
    throw e instanceof FileWriteError ? e : new FileWriteError(file, e);
  }
  await syncDirectory(dir, fs).catch((e: unknown) => {
    throw new FileWriteError(
      file,
      e,
      `it was renamed into place, but its directory ${dir} could not be synced`,
    );
  });
}

/**
 * fsync of a directory, so that a rename in it is durable. File systems that cannot sync a directory
 * (EINVAL, ENOTSUP; EISDIR or EPERM where a directory cannot be opened) are skipped: nothing more can be done.
 */
export async function syncDirectory(dir: string, fs: WriteFs = nodeWriteFs): Promise<void> {
  let handle: WriteHandle;
  try {
    handle = await fs.open(dir, 'r');
  } catch (e) {
    if (UNSYNCABLE.has(errnoCode(e) ?? '')) return;
    throw e;
  }
  try {
    await handle.sync();
  } catch (e) {
    if (!UNSYNCABLE.has(errnoCode(e) ?? '')) throw e;
  } finally {
    await handle.close().catch(() => {});
  }
}

const UNSYNCABLE = new Set(['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EISDIR', 'EPERM']);

/** The errno name of a node error ('ENOSPC'), if it has one. */
export function errnoCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

function hintFor(code: string | undefined): string {
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return ' (the disk is full: free space there, or write elsewhere)';
  if (code === 'EROFS') return ' (a read-only file system: write elsewhere)';
  return '';
}
