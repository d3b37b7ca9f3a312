/**
 * A server counted by cachegrind: the postmaster runs under valgrind, and every backend it forks (without
 * exec) stays under it and writes its own file when it exits. The files of a run's backends are waited for,
 * then read (cachegrind-file.ts) and summed.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BACKEND_EXIT_WAIT_S } from './backend-log.js';
import { parseCachegrind, type CachegrindProfile } from './cachegrind-file.js';

/** valgrind's cachegrind without cache simulation, one output file per process (backends are forked). */
export function cachegrindWrapper(outDir: string): string[] {
  return [
    // valgrind keeps its own temporary files in TMPDIR; the caller's may be private to pgperf's user, and the
    // server runs as the run-as user, who owns outDir.
    'env',
    `TMPDIR=${outDir}`,
    'valgrind',
    '--tool=cachegrind',
    '--cache-sim=no',
    '--quiet',
    `--cachegrind-out-file=${path.join(outDir, 'cg.%p')}`,
  ];
}

/** The file a backend of pid `pid` writes under `outDir` (the %p of cachegrindWrapper). */
export function cachegrindFileOf(outDir: string, pid: number): string {
  return path.join(outDir, `cg.${pid}`);
}

/** A backend writes its file when it exits, after the client has gone: wait until the file is complete. */
export async function waitForProfile(file: string, signal?: AbortSignal): Promise<CachegrindProfile> {
  const deadline = Date.now() + BACKEND_EXIT_WAIT_S * 1000;
  for (;;) {
    signal?.throwIfAborted();
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text !== undefined && /\nsummary: /.test(text)) return parseCachegrind(text, file);
    if (Date.now() > deadline) {
      throw new Error(
        `${file}: the backend wrote no complete cachegrind file within ${BACKEND_EXIT_WAIT_S} s`,
      );
    }
    await sleep(100);
  }
}

/** The instructions of the profiles together. */
export function sumIr(profiles: readonly CachegrindProfile[]): number {
  return profiles.reduce((s, p) => s + p.totalIr, 0);
}
