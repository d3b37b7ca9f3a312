/**
 * Where the run loop sends the results document: it is handed a sink, never a path it derives. A sink sees
 * the document after every measured run (so an interrupted run keeps what it measured) and once at the end.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { FileWriteError, nodeWriteFs, type WriteFs } from '../machine/os/atomic-write.js';
import { onCleanup } from '../machine/os/cleanup.js';
import { resultsText, writeResults } from '../store/write-results.js';
import type { RunResult } from '../core/results/result-types.js';

export interface ResultSink {
  /** Where the document goes, for log lines ("results: ..."). */
  readonly description: string;
  /**
   * After every measured run; cheap sinks (a file) persist it, others may ignore it. A rejection means the
   * document could not be kept: the run loop stops the run (status 'failed') and calls finish.
   */
  update(result: RunResult): Promise<void>;
  /** Once, when the run has ended (complete, interrupted or failed). */
  finish(result: RunResult): Promise<void>;
  /**
   * A forced exit (a second signal, a crash: see finishOnForcedExit): the final document where it lands
   * within a moment (a file); a sink that would need the network (a store) leaves it out. Absent: skipped.
   */
  finishNow?(result: RunResult): Promise<void>;
}

/**
 * The smallest room (bytes) the file sink keeps in reserve beyond the document's size: enough for the
 * final write's status, stop reason and warnings, and for a sample or two of a long run (a 10-minute run's
 * per-second progress is about 40 kB). The margin is twice the largest growth between two writes when
 * that is more.
 */
export const RESERVE_MIN_MARGIN_BYTES = 64 * 1024;

export interface FileSinkOptions {
  /** The file system (default: the real one); tests inject failures here. */
  fs?: WriteFs;
  /** Replaces RESERVE_MIN_MARGIN_BYTES (tests with a tiny simulated disk). */
  reserveMarginBytes?: number;
}

/**
 * The results file, rewritten atomically and durably after every run and at the end (writeResults: temp
 * file, fsync, rename, fsync of the directory): after any failure the previous complete version remains.
 *
 * So that a full disk cannot also take the run's end with it, the sink keeps room for its final write: a
 * reserve file beside the results (`.results.json.reserve`), at least the document's size plus a margin,
 * grown before each write. When the disk runs full (growing the reserve or writing the document fails),
 * update rejects with a FileWriteError naming the file and the errno (the previous document intact on
 * disk); the run loop stops the run, and
 * finish deletes the reserve and writes the final document (status 'failed', every sample) into the room
 * it frees. The reserve is removed at the end, however the run ends. If even the final write cannot land,
 * finish rejects with an error that says where the last intact copy is.
 */
export function fileSink(file: string, options: FileSinkOptions = {}): ResultSink {
  const fs = options.fs ?? nodeWriteFs;
  const minMargin = options.reserveMarginBytes ?? RESERVE_MIN_MARGIN_BYTES;
  const reserveFile = path.join(path.dirname(file), `.${path.basename(file)}.reserve`);
  /** Bytes known to be in the reserve file (0: none, or it is gone). */
  let reserved = 0;
  let reserveMayExist = false;
  let largestGrowth = 0;
  let lastSize: number | undefined;
  /** The last document that landed: the intact copy a failed write leaves. */
  let written: { at: string; samples: number; status: string } | undefined;

  /** Grows the reserve to hold the next document plus the margin (to that plus twice the margin). */
  const ensureReserve = async (size: number) => {
    const margin = Math.max(minMargin, 2 * largestGrowth);
    if (reserved >= size + margin) return;
    const target = size + 2 * margin;
    await fs.mkdir(path.dirname(file), { recursive: true }).catch((e: unknown) => {
      throw new FileWriteError(file, e, `its directory ${path.dirname(file)} could not be created`);
    });
    try {
      const handle = await fs.open(reserveFile, reserved === 0 ? 'w' : 'a');
      reserveMayExist = true;
      try {
        // Random bytes, so that a compressing file system really allocates them.
        while (reserved < target) {
          const chunk = Math.min(RESERVE_CHUNK_BYTES, target - reserved);
          await handle.writeFile(randomBytes(chunk));
          reserved += chunk;
        }
        await handle.sync();
      } finally {
        await handle.close().catch(() => {});
      }
    } catch (e) {
      throw new FileWriteError(
        file,
        e,
        `the room kept beside it for its final write (${reserveFile}, ${target} bytes) could not be reserved, so the run stops while the results can still be written`,
      );
    }
  };
  const releaseReserve = async () => {
    if (!reserveMayExist) return;
    await fs.rm(reserveFile, { force: true });
    reserved = 0;
    reserveMayExist = false;
  };
  const intactCopy = () =>
    written
      ? `the last intact copy is ${file} as written at ${written.at} (${written.samples} samples, status '${written.status}')`
      : `nothing was written to ${file} yet`;
  const write = async (result: RunResult, text: string) => {
    await writeResults(file, text, fs);
    written = { at: result.updatedAt, samples: result.samples.length, status: result.status };
  };
  const finalWrite = async (result: RunResult) => {
    const text = resultsText(result);
    try {
      try {
        await write(result, text);
      } catch (e) {
        if (!reserveMayExist) throw e;
        // The disk may be full: the reserve's room is what the final document is written into.
        await releaseReserve();
        await write(result, text);
      }
    } catch (e) {
      throw new FileWriteError(
        file,
        e,
        `the final document (status '${result.status}', ${result.samples.length} samples) did not land; ${intactCopy()}`,
      );
    } finally {
      await releaseReserve().catch(() => {});
    }
  };

  // One write at a time, in order: the final write waits for an update still writing (so it never lands
  // under it, and no temp file of it is left), and once it started nothing more is written.
  let queue: Promise<unknown> = Promise.resolve();
  let finishing: Promise<void> | undefined;
  const finish = (result: RunResult): Promise<void> => {
    finishing ??= queue.catch(() => {}).then(() => finalWrite(result));
    return finishing;
  };
  return {
    description: file,
    update(result) {
      if (finishing) return Promise.resolve();
      const text = resultsText(result);
      const size = Buffer.byteLength(text);
      if (lastSize !== undefined) largestGrowth = Math.max(largestGrowth, size - lastSize);
      lastSize = size;
      const next = queue
        .catch(() => {})
        .then(async () => {
          await ensureReserve(size);
          await write(result, text);
        });
      queue = next;
      return next;
    },
    finish,
    finishNow: finish,
  };
}

/**
 * Registers the end of a run that a forced exit cuts short (src/machine/os/signals.ts: a second signal, a
 * crash), where the run loop's own ending never comes: the document, if still 'running', is marked
 * 'interrupted' (a signal stopped the run, `signal` aborted) or 'failed', and finished with finishNow, first
 * among the cleanups, before the servers are stopped. A complete or already ended document is finished as
 * it is. Returns the function that unregisters it (after the run loop's own finish).
 */
export function finishOnForcedExit(
  sink: ResultSink,
  result: RunResult,
  signal: AbortSignal | undefined,
): () => void {
  return onCleanup(
    async () => {
      if (result.status === 'running') {
        const interrupted = signal?.aborted === true;
        result.status = interrupted ? 'interrupted' : 'failed';
        result.stopReason = interrupted
          ? 'interrupted (signal; forced exit: the run was not waited for)'
          : 'pgperf ended before the run did (an internal error)';
      }
      result.updatedAt = new Date().toISOString();
      await sink.finishNow?.(result);
    },
    { first: true },
  );
}

/** The reserve is written in chunks of this many bytes. */
const RESERVE_CHUNK_BYTES = 64 * 1024;

/** Several sinks in order; every sink is tried, and the first failure is rethrown after the others ran. */
export function combineSinks(...sinks: ResultSink[]): ResultSink {
  const each = async (fn: (s: ResultSink) => Promise<void>) => {
    const outcomes = await Promise.allSettled(sinks.map(fn));
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
  };
  return {
    description: sinks.map((s) => s.description).join(' and '),
    update: (result) => each((s) => s.update(result)),
    finish: (result) => each((s) => s.finish(result)),
    finishNow: (result) => each((s) => s.finishNow?.(result) ?? Promise.resolve()),
  };
}
