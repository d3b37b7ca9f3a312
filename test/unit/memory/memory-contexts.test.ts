/**
 * The memory contexts of a backend as PostgreSQL 18 and 15 logged them (test/fixtures/memory-contexts/README.md
 * says how they were captured): the dump of one pid read back from a whole server log, summed by name into
 * the top contexts, and the capture's outcomes (read, the backend gone, the function missing, no dump).
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  parseMemoryContextsLog,
  UNLISTED_CHILDREN,
} from '../../../src/postgres/memory/memory-contexts-log.js';
import { captureMemoryContexts } from '../../../src/postgres/memory/memory-contexts-capture.js';
import { topContexts } from '../../../src/core/results/memory-contexts.js';

const fixture = (name: string) =>
  readFileSync(path.join(__dirname, '../../fixtures/memory-contexts', name), 'utf8');

describe('pg_log_backend_memory_contexts in a real server log', () => {
  it.each([
    // file, pid, contexts, grand total, its 5 largest names summed (bytes, contexts)
    [
      'pg18-bind-head-select-only.log',
      10864,
      120,
      1323136,
      [
        ['CacheMemoryContext', 524288, 1],
        ['index info', 224960, 91],
        ['Timezones', 104112, 1],
        ['TopMemoryContext', 99456, 1],
        ['WAL record construction', 49760, 1],
      ],
    ],
    [
      'pg15-select-only-and-catalog-session.log',
      11919,
      124,
      2108872,
      [
        ['CacheMemoryContext', 1057840, 1],
        ['relation rules', 344512, 2],
        ['index info', 184320, 96],
        ['Timezones', 104120, 1],
        ['TopMemoryContext', 97680, 1],
      ],
    ],
  ] as const)('%s, pid %i: %i contexts, grand total %i', (file, pid, n, grand, top) => {
    const logged = parseMemoryContextsLog(fixture(file), pid)!;
    expect(logged.contexts).toHaveLength(n);
    expect(logged.grandTotalBytes).toBe(grand);
    expect(topContexts(logged.contexts).map((c) => [c.name, c.totalBytes, c.contexts])).toEqual(top);
  });

  it('reads the levels as logged (0-based before 18, 1-based since) and a context name before its ident', () => {
    const pg18 = parseMemoryContextsLog(fixture('pg18-bind-head-select-only.log'), 10863)!;
    const pg15 = parseMemoryContextsLog(fixture('pg15-select-only-and-catalog-session.log'), 11825)!;
    expect(pg18.contexts[0]).toEqual({ level: 1, name: 'TopMemoryContext', totalBytes: 99456 });
    expect(pg15.contexts[0]).toEqual({ level: 0, name: 'TopMemoryContext', totalBytes: 97680 });
    // "CachedPlan: 4096 total in 3 blocks; ...; 2880 used: SELECT abalance FROM ..."
    expect(pg18.contexts.filter((c) => c.name === 'CachedPlan')).toEqual([
      { level: 3, name: 'CachedPlan', totalBytes: 4096 },
    ]);
    // The bind head's 4 MB is not in MessageContext when the backend logs (README.md).
    expect(pg18.contexts.find((c) => c.name === 'MessageContext')?.totalBytes).toBe(8192);
  });

  it("keeps to the pid's lines where another process logs in between, and counts unlisted children", () => {
    const text = [
      '2026-11-29 14:46:30.467 UTC [77] LOG:  logging memory contexts of PID 77',
      '2026-11-29 14:46:30.467 UTC [77] LOG:  level: 1; TopMemoryContext: 1000 total in 1 blocks; 0 free (0 chunks); 1000 used',
      '2026-11-29 14:46:30.467 UTC [12] LOG:  level: 1; TopMemoryContext: 99999 total in 1 blocks; 0 free (0 chunks); 99999 used',
      '2026-11-29 14:46:30.467 UTC [12] LOG:  checkpoint starting: time',
      // mcxt.c's summary line for children beyond max_children ("%d more child contexts containing ...").
      '2026-11-29 14:46:30.467 UTC [77] LOG:  level: 2; 12 more child contexts containing 24576 total in 12 blocks; 100 free (1 chunks); 24476 used',
      '2026-11-29 14:46:30.467 UTC [77] LOG:  Grand total: 25576 bytes in 13 blocks; 100 free (1 chunks); 25476 used',
    ].join('\n');
    expect(parseMemoryContextsLog(text, 77)).toEqual({
      contexts: [
        { level: 1, name: 'TopMemoryContext', totalBytes: 1000 },
        { level: 2, name: UNLISTED_CHILDREN, totalBytes: 24576 },
      ],
      grandTotalBytes: 25576,
    });
  });

  it('has no dump for a pid that did not log, nor for one cut off before its grand total', () => {
    const text = fixture('pg18-bind-head-select-only.log');
    expect(parseMemoryContextsLog(text, 4242)).toBeUndefined();
    const cut = text.slice(0, text.indexOf('[10864] LOG:  Grand total'));
    expect(parseMemoryContextsLog(cut, 10864)).toBeUndefined();
  });
});

describe('topContexts', () => {
  it('sums by name and orders by bytes, then name', () => {
    const top = topContexts(
      [
        { level: 2, name: 'index info', totalBytes: 2048 },
        { level: 2, name: 'b', totalBytes: 4096 },
        { level: 2, name: 'index info', totalBytes: 3072 },
        { level: 1, name: 'a', totalBytes: 4096 },
      ],
      3,
    );
    expect(top).toEqual([
      { name: 'index info', totalBytes: 5120, contexts: 2 },
      { name: 'a', totalBytes: 4096, contexts: 1 },
      { name: 'b', totalBytes: 4096, contexts: 1 },
    ]);
  });
});

describe('captureMemoryContexts', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pgperf-contexts-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const dump = fixture('pg18-bind-head-select-only.log')
    .split('\n')
    .filter((l) => l.includes('[10864]'))
    .join('\n');

  /** A client whose request makes "the backend" append its dump to the log (or not). */
  const client = (log: string, answer: () => boolean | Error) => ({
    asked: [] as unknown[][],
    query<R>(_sql: string, params: unknown[]): Promise<{ rows: R[] }> {
      this.asked.push(params);
      const a = answer();
      if (a instanceof Error) return Promise.reject(a);
      if (a) setTimeout(() => appendFileSync(log, `${dump}\n`), 20);
      return Promise.resolve({ rows: [{ ok: a } as R] });
    },
  });

  it("reads only what the backend logged after the request, with the backend's reading beside it", async () => {
    const log = path.join(dir, 'a.log');
    // An older dump of the same pid with other figures, before the request: not read.
    writeFileSync(log, `${dump.replaceAll('524288 total', '1 total')}\n`);
    const c = client(log, () => true);
    const record = await captureMemoryContexts(c, 10864, {
      logFile: log,
      readBackend: () => Promise.resolve(6e6),
    });
    expect(c.asked).toEqual([[10864]]);
    expect(record).toMatchObject({ pid: 10864, totalBytes: 1323136, backendBytes: 6e6 });
    expect(record.top![0]).toEqual({ name: 'CacheMemoryContext', totalBytes: 524288, contexts: 1 });
    expect(record.notRecorded).toBeUndefined();
  });

  it.each([
    ['the backend had ended', () => false, /backend 10864 had ended before it was asked/],
    [
      'the function is missing (PostgreSQL 13)',
      () => new Error('function pg_log_backend_memory_contexts(integer) does not exist'),
      /pg_log_backend_memory_contexts failed \(PostgreSQL 14\+\): function .* does not exist/,
    ],
  ])('says why when %s', async (_what, answer, why) => {
    const log = path.join(dir, 'b.log');
    writeFileSync(log, '');
    const record = await captureMemoryContexts(client(log, answer), 10864, { logFile: log });
    expect(record.top).toBeUndefined();
    expect(record.notRecorded).toMatch(why);
  });

  it('gives up after its wait when no dump comes, and says so', async () => {
    const log = path.join(dir, 'c.log');
    writeFileSync(log, '');
    const silent = { query: <R>() => Promise.resolve({ rows: [{ ok: true } as R] }) };
    const record = await captureMemoryContexts(silent, 10864, { logFile: log, waitMs: 120 });
    expect(record.notRecorded).toMatch(/did not log its memory contexts within 0.12 s/);
  });

  it('says so when the log cannot be read', async () => {
    const record = await captureMemoryContexts(
      client('', () => true),
      1,
      { logFile: path.join(dir, 'none.log') },
    );
    expect(record.notRecorded).toMatch(/the server log cannot be read: .*ENOENT/);
  });
});
