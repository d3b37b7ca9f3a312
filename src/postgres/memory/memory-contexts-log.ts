/**
 * What `pg_log_backend_memory_contexts(pid)` writes to the server log (PostgreSQL 14+, mcxt.c
 * MemoryContextStatsPrint), read back for one backend:
 *
 *     ... [10864] LOG:  logging memory contexts of PID 10864
 *     ... [10864] LOG:  level: 1; TopMemoryContext: 99456 total in 5 blocks; 7608 free (11 chunks); 91848 used
 *     ... [10864] LOG:  level: 3; CachedPlan: 4096 total in 3 blocks; ...; 2880 used: SELECT abalance ...
 *     ... [10864] LOG:  level: 2; 12 more child contexts containing 24576 total in 12 blocks; ...
 *     ... [10864] LOG:  Grand total: 1323136 bytes in 247 blocks; 343048 free (330 chunks); 980088 used
 *
 * Levels start at 0 before PostgreSQL 18 and at 1 since; a context's ident follows its figures after ": ".
 * Real captures: test/fixtures/memory-contexts. Pure.
 */
import type { LoggedContext } from '../../core/results/memory-contexts.js';

/** A backend's logged contexts: each context, and the grand total. */
export interface LoggedContexts {
  contexts: LoggedContext[];
  grandTotalBytes: number;
}

/** The name under which a "N more child contexts" summary line is counted. */
export const UNLISTED_CHILDREN = '(child contexts not listed)';

const CONTEXT = /LOG:\s+level: (\d+); (.+?): (\d+) total in \d+ blocks;/;
const UNLISTED = /LOG:\s+level: (\d+); \d+ more child contexts containing (\d+) total in \d+ blocks;/;
const GRAND_TOTAL = /LOG:\s+Grand total: (\d+) bytes in \d+ blocks;/;

/**
 * The last complete dump of `pid`'s contexts in `text` (a server log, or its tail), undefined when there is
 * none (not logged yet, or cut off before its grand total). Where the header line carries the pid in
 * brackets (the default log_line_prefix '%m [%p] '), only lines with that pid are read, so another
 * process's lines in between do not mix in.
 */
export function parseMemoryContextsLog(text: string, pid: number): LoggedContexts | undefined {
  const lines = text.split('\n');
  const header = `LOG:  logging memory contexts of PID ${pid}`;
  for (let start = lines.length - 1; start >= 0; start--) {
    if (!lines[start]!.includes(header)) continue;
    const tag = lines[start]!.includes(`[${pid}]`) ? `[${pid}]` : undefined;
    const contexts: LoggedContext[] = [];
    for (const line of lines.slice(start + 1)) {
      if (tag && !line.includes(tag)) continue;
      if (line.includes(header)) break;
      const total = GRAND_TOTAL.exec(line);
      if (total) return { contexts, grandTotalBytes: Number(total[1]) };
      const unlisted = UNLISTED.exec(line);
      if (unlisted) {
        contexts.push({
          level: Number(unlisted[1]),
          name: UNLISTED_CHILDREN,
          totalBytes: Number(unlisted[2]),
        });
        continue;
      }
      const m = CONTEXT.exec(line);
      if (m) contexts.push({ level: Number(m[1]), name: m[2]!, totalBytes: Number(m[3]) });
    }
    return undefined;
  }
  return undefined;
}
