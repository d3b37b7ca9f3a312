/**
 * Last-resort cleanup: every started server and temp directory registers how to release itself, so
 * that a second Ctrl-C or an unexpected exit still stops what pgperf started. Normal paths release
 * resources in `finally` blocks and unregister.
 */
const tasks = new Map<number, () => Promise<void>>();
let nextId = 1;

/** Registers a cleanup; call the returned function once the resource is released normally. */
export function onCleanup(task: () => Promise<void>): () => void {
  const id = nextId++;
  tasks.set(id, task);
  return () => tasks.delete(id);
}

/** Runs every registered cleanup (newest first), ignoring failures so that the others still run. */
export async function runCleanups(): Promise<void> {
  const pending = [...tasks.entries()].reverse();
  tasks.clear();
  for (const [, task] of pending) {
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
