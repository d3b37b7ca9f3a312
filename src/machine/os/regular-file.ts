/**
 * Reading a file someone else named (a results file, a store's run, a patch, an event payload, a workload),
 * with an end. Only a regular file is read: a FIFO's open() waits for a writer in libuv's thread pool for
 * ever, and a device such as /dev/zero never ends, so the file is stat'ed first (stat does not wait on a
 * FIFO), then opened with O_NONBLOCK (a FIFO swapped in after the stat opens without waiting) and checked
 * again on the open descriptor. The whole read has a deadline: a hung network mount answers neither stat
 * nor read, and the caller gets a clear error instead of a run that never starts. (The thread the mount
 * holds stays stuck; end-process.ts ends pgperf without waiting for it.)
 */
import { constants, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { UserError } from '../../core/util/errors.js';

/**
 * How long a whole read may take: results files and patches are megabytes at most, read in well under a
 * second from a local disk and in a few from a slow mount; a minute without an answer is a mount that hangs.
 */
export const READ_TIMEOUT_MS = 60_000;

export interface RegularFileOptions {
  /** What the file should be, for the message (default 'a regular file'). */
  expected?: string;
  /** A larger file is refused before it is read. */
  maxBytes?: number;
  /** Replaces READ_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Stops waiting (a first SIGINT). */
  signal?: AbortSignal;
}

/** The file system calls used (tests replace them with calls that never answer). */
export interface RegularFileFs {
  stat: (file: string) => Promise<Stats>;
  open: (file: string, flags: number) => Promise<FileHandle>;
}

const nodeFs: RegularFileFs = { stat: (file) => stat(file), open: (file, flags) => open(file, flags) };

/** Why a file was not read. */
export class FileReadError extends UserError {
  /**
   * The OS error's code (ENOENT, EACCES, ...); ENOTREG: not a regular file; ETIMEDOUT: no answer in time;
   * EFBIG: larger than allowed.
   */
  readonly code: string;
  /** The reason without the file: "cannot read it (ENOENT)", "is a FIFO, expected a regular file". */
  readonly reason: string;

  constructor(
    readonly file: string,
    code: string,
    reason: string,
    /** An error of the OS (then `code` is its code), not one of the checks. */
    readonly fromOs = false,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'FileReadError';
    this.code = code;
    this.reason = reason;
  }
}

/** "a FIFO", "a directory", ... for a file that is not a regular file. */
export function fileKind(st: Stats): string {
  if (st.isFile()) return 'a regular file';
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/** The text of a regular file (UTF-8); a FileReadError naming the file and why otherwise. */
export async function readRegularFile(
  file: string,
  options: RegularFileOptions = {},
  fs: RegularFileFs = nodeFs,
): Promise<string> {
  return (await readRegularFileBytes(file, options, fs)).toString('utf8');
}

/** The bytes of a regular file; see readRegularFile. */
export async function readRegularFileBytes(
  file: string,
  options: RegularFileOptions = {},
  fs: RegularFileFs = nodeFs,
): Promise<Buffer> {
  return withDeadline(file, readChecked(file, options, fs), options);
}

/**
 * What `work` (a call on `file`: a read, a stat, a directory listing) gives, or a FileReadError naming the
 * file when it has not answered within the deadline or `signal` aborts the wait. The call itself cannot be
 * cancelled: it is left to end (or not) on its own.
 */
export async function withDeadline<T>(
  file: string,
  work: Promise<T>,
  options: Pick<RegularFileOptions, 'timeoutMs' | 'signal' | 'expected'> = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? READ_TIMEOUT_MS;
  // Whoever loses the race must not become an unhandled rejection later (a mount that answers at last).
  work.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new FileReadError(
            file,
            'ETIMEDOUT',
            `no answer in ${timeoutMs / 1000} s (a hung network mount?); expected ${options.expected ?? 'a regular file'} that can be read`,
          ),
        ),
      timeoutMs,
    );
    onAbort = () => reject(new FileReadError(file, 'ABORT_ERR', 'not read: stopped'));
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
    if (onAbort) options.signal?.removeEventListener('abort', onAbort);
  }
}

async function readChecked(file: string, options: RegularFileOptions, fs: RegularFileFs): Promise<Buffer> {
  const expected = options.expected ?? 'a regular file';
  const check = (st: Stats) => {
    if (!st.isFile()) throw new FileReadError(file, 'ENOTREG', `is ${fileKind(st)}, expected ${expected}`);
    if (options.maxBytes !== undefined && st.size > options.maxBytes) {
      throw new FileReadError(
        file,
        'EFBIG',
        `is ${st.size} bytes, larger than the ${options.maxBytes} allowed for ${expected}`,
      );
    }
  };
  const osError = (e: unknown) =>
    e instanceof FileReadError
      ? e
      : new FileReadError(
          file,
          (e as NodeJS.ErrnoException).code ?? 'EIO',
          `cannot read it (${(e as NodeJS.ErrnoException).code ?? String(e)})`,
          true,
        );
  try {
    check(await fs.stat(file));
  } catch (e) {
    throw osError(e);
  }
  let handle;
  try {
    // O_NONBLOCK changes nothing for a regular file; a FIFO put here since the stat opens without a writer.
    handle = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw osError(e);
  }
  try {
    check(await handle.stat());
    return await handle.readFile();
  } catch (e) {
    throw osError(e);
  } finally {
    await handle.close().catch(() => {});
  }
}
