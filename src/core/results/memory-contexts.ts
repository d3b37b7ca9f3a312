/**
 * The memory contexts of a run's largest backend (docs/steady-metrics.md#memory-contexts): once per measured
 * run, near its end, the backend with the largest private-memory reading so far is asked to log its memory
 * contexts (`pg_log_backend_memory_contexts`, PostgreSQL 14+), and the largest are kept, summed by name (one
 * `index info` context per index; their sum is what a hacker compares). Beside them: the contexts' grand
 * total and the backend's own reading right after, whose difference is memory outside any context when they
 * were logged: memory a backend palloc'd and freed that malloc keeps (a per-message allocation in
 * MessageContext, reset before the next message, shows there and not in the contexts), or memory not
 * palloc'd at all.
 *
 * Pure: the record a sample keeps and the top of a list of contexts; no I/O.
 */

/** How many context names a record keeps. */
export const TOP_CONTEXTS = 5;

/** One context name's memory in a backend: the total of every context of that name. */
export interface ContextTotal {
  name: string;
  /** Bytes malloc'd for these contexts (their blocks, used and free: what the backend holds for them). */
  totalBytes: number;
  /** Contexts of that name. */
  contexts: number;
}

/** What a sample keeps of its largest backend's memory contexts (`sample.memory.contexts`). */
export interface MemoryContextsRecord {
  /** The backend asked (its pid); absent when none could be. */
  pid?: number;
  /** The largest context names, largest first (TOP_CONTEXTS); absent when not recorded. */
  top?: ContextTotal[];
  /** The grand total of all its contexts, bytes. */
  totalBytes?: number;
  /** The backend's private memory (BACKEND_MEMORY_FIELD) read right after they were logged, bytes. */
  backendBytes?: number;
  /** Why they were not recorded (PostgreSQL before 14, the backend gone, the log unreadable); absent when they were. */
  notRecorded?: string;
}

/** One context as the server logged it. */
export interface LoggedContext {
  level: number;
  name: string;
  totalBytes: number;
}

/**
 * The `n` largest context names of a backend's contexts, each the sum over its contexts of that name,
 * largest first (ties by name, so equal inputs give equal records).
 *
 * @example topContexts([{level: 2, name: 'index info', totalBytes: 2048}, {level: 2, name: 'index info',
 *   totalBytes: 3072}, {level: 1, name: 'MessageContext', totalBytes: 8192}], 1)
 *   // [{ name: 'MessageContext', totalBytes: 8192, contexts: 1 }]
 */
export function topContexts(contexts: readonly LoggedContext[], n = TOP_CONTEXTS): ContextTotal[] {
  const byName = new Map<string, ContextTotal>();
  for (const c of contexts) {
    const sum = byName.get(c.name);
    if (sum) {
      sum.totalBytes += c.totalBytes;
      sum.contexts++;
    } else byName.set(c.name, { name: c.name, totalBytes: c.totalBytes, contexts: 1 });
  }
  return [...byName.values()]
    .sort((a, b) => b.totalBytes - a.totalBytes || a.name.localeCompare(b.name))
    .slice(0, n);
}
