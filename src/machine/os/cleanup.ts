/**
 * The one cleanup registry: every started server and temp directory registers how to release itself,
 * so that whatever way pgperf ends (an error, a first or second signal, an uncaught exception, or
 * normally) it stops what it started. Normal paths release resources in `finally` blocks and
 * unregister; the adapters (CLI main, Action) run what is left with `runCleanups()` on every path, and
 * src/machine/os/signals.ts runs it before a forced exit.
 */
import { chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const tasks = new Map<number, { task: () => Promise<void>; first: boolean }>();
let nextId = 1;

export interface CleanupOptions {
  /**
   * Run before every cleanup without it: a record that must land before the slower work of stopping
   * servers (on a workflow cancel, SIGKILL follows the second signal within seconds).
   */
  first?: boolean;
}

/** Registers a cleanup; call the returned function once the resource is released normally. */
export function onCleanup(task: () => Promise<void>, options: CleanupOptions = {}): () => void {
  const id = nextId++;
  tasks.set(id, { task, first: options.first === true });
  return () => tasks.delete(id);
}

let draining: Promise<void> = Promise.resolve();

/**
 * Runs every registered cleanup (those registered `first` before the others, each group newest first),
 * ignoring failures so that the others still run. A call
 * while another is still running waits for it (a second Ctrl-C during the first cleanup must not exit
 * before the servers are down), then runs whatever was registered meanwhile.
 */
export function runCleanups(): Promise<void> {
  draining = draining.then(() => drain(() => true));
  return draining;
}

/** Runs only the cleanups registered `first` (a forced exit: the record, before the children are killed). */
export function runFirstCleanups(): Promise<void> {
  draining = draining.then(() => drain((t) => t.first));
  return draining;
}

async function drain(which: (t: { first: boolean }) => boolean): Promise<void> {
  const newestFirst = [...tasks.entries()].reverse().filter(([, t]) => which(t));
  const pending = [...newestFirst.filter(([, t]) => t.first), ...newestFirst.filter(([, t]) => !t.first)];
  for (const [id] of pending) tasks.delete(id);
  for (const [, { task }] of pending) {
    try {
      await task();
    } catch {
      // Best effort: the process is going down; the next cleanup matters more than this error.
    }
  }
}

export function pendingCleanups(): number {
  return tasks.size;
}

/** A private temp directory that is removed by `remove()` or, at the latest, by `runCleanups()`. */
export interface TempDir {
  dir: string;
  remove(): Promise<void>;
}

/**
 * mkdtemp under `parent` (default the OS temp dir), registered for removal: nothing pgperf creates in
 * /tmp outlives it, even when it is interrupted.
 */
export async function makeTempDir(
  prefix: string,
  options: { parent?: string; owner?: { uid: number; gid: number } } = {},
): Promise<TempDir> {
  const dir = await mkdtemp(path.join(options.parent ?? os.tmpdir(), prefix));
  const release = () => rm(dir, { recursive: true, force: true });
  const unregister = onCleanup(release);
  // A child that runs as another (unprivileged) user writes here: the directory is that user's, still 0700.
  if (options.owner) await chown(dir, options.owner.uid, options.owner.gid);
  return {
    dir,
    async remove() {
      // Unregistered once it is gone: a forced exit meanwhile removes it too, and waits for that.
      await release();
      unregister();
    },
  };
}
