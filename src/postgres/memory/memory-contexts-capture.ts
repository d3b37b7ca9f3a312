/**
 * Asks one backend for its memory contexts and reads them back from the server log
 * (memory-contexts-log.ts): `SELECT pg_log_backend_memory_contexts(pid)` (PostgreSQL 14+, superuser: pgperf
 * connects as one) signals the backend, which logs them at its next interrupt check, within milliseconds
 * while it works or waits for its client. Only the log written after the request is read. Never throws: what
 * goes wrong is the record's `notRecorded`.
 */
import { open, stat } from 'node:fs/promises';
import { topContexts, type MemoryContextsRecord } from '../../core/results/memory-contexts.js';
import { errorMessage } from '../../core/util/errors.js';
import { parseMemoryContextsLog } from './memory-contexts-log.js';

/** How long to wait for the backend's dump in the log: a working backend writes it at once. */
export const CONTEXTS_WAIT_MS = 3000;
const POLL_MS = 50;

/** The one query the capture needs (a pg.Client fits). */
export interface ContextsQuerier {
  query<R extends Record<string, unknown>>(sql: string, params: unknown[]): Promise<{ rows: R[] }>;
}

export interface ContextsCaptureOptions {
  /** The server's log file (pg_ctl -l). */
  logFile: string;
  waitMs?: number;
  /** The backend's private memory right after, bytes (the sampler's reading); undefined when unread. */
  readBackend?: (pid: number) => Promise<number | undefined>;
}

export async function captureMemoryContexts(
  client: ContextsQuerier,
  pid: number,
  options: ContextsCaptureOptions,
): Promise<MemoryContextsRecord> {
  const notRecorded = (why: string): MemoryContextsRecord => ({ pid, notRecorded: why });
  let offset: number;
  try {
    offset = (await stat(options.logFile)).size;
  } catch (e) {
    return notRecorded(`the server log cannot be read: ${errorMessage(e)}`);
  }
  try {
    const r = await client.query<{ ok: boolean }>('SELECT pg_log_backend_memory_contexts($1) AS ok', [pid]);
    if (r.rows[0]?.ok !== true) return notRecorded(`backend ${pid} had ended before it was asked`);
  } catch (e) {
    return notRecorded(`pg_log_backend_memory_contexts failed (PostgreSQL 14+): ${errorMessage(e)}`);
  }
  const deadline = Date.now() + (options.waitMs ?? CONTEXTS_WAIT_MS);
  for (;;) {
    let text: string;
    try {
      text = await readFrom(options.logFile, offset);
    } catch (e) {
      return notRecorded(`the server log cannot be read: ${errorMessage(e)}`);
    }
    const logged = parseMemoryContextsLog(text, pid);
    if (logged) {
      const backendBytes = await options.readBackend?.(pid).catch(() => undefined);
      return {
        pid,
        top: topContexts(logged.contexts),
        totalBytes: logged.grandTotalBytes,
        ...(backendBytes !== undefined ? { backendBytes } : {}),
      };
    }
    if (Date.now() >= deadline) {
      return notRecorded(
        `backend ${pid} did not log its memory contexts within ${(options.waitMs ?? CONTEXTS_WAIT_MS) / 1000} s (it may have ended; a log_destination other than stderr is not read)`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The file from byte `offset` on (the log written since the request). */
async function readFrom(file: string, offset: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(Math.max(0, size - offset));
    await handle.read(buffer, 0, buffer.length, offset);
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}
