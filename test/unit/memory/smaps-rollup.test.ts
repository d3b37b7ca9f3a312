/**
 * smaps_rollup of real PostgreSQL 18 backends (test/fixtures/smaps-rollup/README.md says how they were
 * captured): the fields in bytes, the figure pgperf takes (Anonymous, which leaves the shared buffers out
 * where Private_Dirty does not), and the reading outcomes: read, gone, not readable (with the reason).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSmapsRollup, readSmapsField } from '../../../src/postgres/memory/smaps-rollup.js';
import { parsePlannerMemory } from '../../../src/postgres/memory/planner-memory.js';
import {
  BACKEND_MEMORY_FIELD,
  backendMemoryRecord,
  backendMemoryMetrics,
} from '../../../src/core/results/memory.js';

const fixture = (name: string) =>
  readFileSync(path.join(__dirname, '../../fixtures/smaps-rollup', name), 'utf8');

describe('smaps_rollup of a PostgreSQL 18 backend', () => {
  it.each([
    ['pg18-seqscan-sort-spilled.txt', 2200, 16264, 15859],
    ['pg18-in-memory-sort.txt', 114476, 115052, 2344],
  ])('%s: Anonymous %i kB, Private_Dirty %i kB of which shared memory %i kB', (file, anon, dirty, shmem) => {
    const fields = parseSmapsRollup(fixture(file));
    expect(fields.get('Anonymous')).toBe(anon * 1024);
    expect(fields.get('Private_Dirty')).toBe(dirty * 1024);
    expect(fields.get('Pss_Shmem')).toBe(shmem * 1024);
    expect(fields.has('[rollup]')).toBe(false);
    expect(fields.size).toBe(22);
  });

  it('the figure is Anonymous: after a scan of shared buffers it stays small where Private_Dirty does not', () => {
    expect(BACKEND_MEMORY_FIELD).toBe('Anonymous');
    const scan = parseSmapsRollup(fixture('pg18-seqscan-sort-spilled.txt'));
    expect(scan.get('Private_Dirty')! / scan.get(BACKEND_MEMORY_FIELD)!).toBeGreaterThan(7);
  });
});

describe('reading one process', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'pgperf-smaps-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(path.join(root, '41'));
  writeFileSync(path.join(root, '41', 'smaps_rollup'), fixture('pg18-in-memory-sort.txt'));
  mkdirSync(path.join(root, '42'));
  writeFileSync(path.join(root, '42', 'stat'), '42 (postgres) S 1');

  it('reads the field in bytes', async () => {
    expect(await readSmapsField(root, 41, 'Anonymous')).toEqual({ kind: 'read', bytes: 114476 * 1024 });
  });
  it('a process that is gone is no reading, not a failure', async () => {
    expect(await readSmapsField(root, 43, 'Anonymous')).toEqual({ kind: 'gone' });
  });
  it('a kernel without smaps_rollup, or without the field, is said so', async () => {
    expect(await readSmapsField(root, 42, 'Anonymous')).toMatchObject({
      kind: 'unreadable',
      reason: expect.stringMatching(/smaps_rollup does not exist \(Linux 4\.14\+\)/),
    });
    expect(await readSmapsField(root, 41, 'Nope')).toMatchObject({
      kind: 'unreadable',
      reason: expect.stringMatching(/no Nope field/),
    });
  });
  it.skipIf(process.getuid?.() === 0)(
    'a file this user may not read is not readable, with the reason (skipped as root: root reads every file)',
    async () => {
      chmodSync(path.join(root, '41', 'smaps_rollup'), 0);
      expect(await readSmapsField(root, 41, 'Anonymous')).toMatchObject({
        kind: 'unreadable',
        reason: expect.stringMatching(/cannot read .*smaps_rollup: .*EACCES/),
      });
    },
  );
});

describe('one run of readings', () => {
  it('peak is the largest reading of any backend; median is the median of each backend median', () => {
    const r = backendMemoryRecord(
      new Map([
        [1, [2e6, 3e6, 2e6]],
        [2, [4e6, 5e6]],
        [3, [1e6]],
      ]),
      250,
      5,
    );
    expect(r).toMatchObject({ backends: 3, peakBytes: 5e6, medianBytes: 2e6, ticks: 5, intervalMs: 250 });
    expect(backendMemoryMetrics(r)).toEqual({ backendMemoryPeakBytes: 5e6, backendMemoryMedianBytes: 2e6 });
  });
  it('no reading: not recorded, with the reason, and no metric', () => {
    const r = backendMemoryRecord(new Map(), 250, 3, 'cannot read /proc/7/smaps_rollup: EACCES');
    expect(r.notRecorded).toBe('cannot read /proc/7/smaps_rollup: EACCES');
    expect(backendMemoryMetrics(r)).toEqual({});
  });
});

describe('EXPLAIN (MEMORY) of PostgreSQL 18', () => {
  it('reads the planning memory; none without the block', () => {
    // psql output of PostgreSQL 18.6 (the capture of test/fixtures/smaps-rollup/README.md, same server).
    const text = [
      'Nested Loop',
      '  Join Filter: (b.bid = a.bid)',
      '  ->  Index Scan using pgbench_accounts_pkey on pgbench_accounts a',
      '        Index Cond: (aid = 1)',
      '  ->  Seq Scan on pgbench_branches b',
      'Planning:',
      '  Memory: used=28kB  allocated=32kB',
    ].join('\n');
    expect(parsePlannerMemory(text)).toEqual({ usedBytes: 28 * 1024, allocatedBytes: 32 * 1024 });
    expect(parsePlannerMemory('Seq Scan on t')).toBeUndefined();
  });
});
