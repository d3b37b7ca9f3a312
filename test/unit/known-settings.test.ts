/**
 * parseDescribeConfig on captured `postgres --describe-config` output of Debian's 15.18 and a built 18.6
 * (test/fixtures/describe-config/README.md says how each was captured).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDescribeConfig } from '../../src/postgres/cluster/known-settings.js';

const fixture = (file: string) =>
  readFileSync(new URL(`../fixtures/describe-config/${file}`, import.meta.url), 'utf8');

describe('parseDescribeConfig on captured output', () => {
  it.each([
    { file: '15.18-debian.tsv', count: 307, has18: false },
    { file: '18.6-source.tsv', count: 348, has18: true },
  ])('$file: every setting, by lower-case name, with its context and type', ({ file, count, has18 }) => {
    const settings = parseDescribeConfig(fixture(file));
    expect(settings.size).toBe(count);
    expect(settings.get('shared_buffers')).toEqual({
      name: 'shared_buffers',
      context: 'postmaster',
      group: 'Resource Usage / Memory',
      type: 'INTEGER',
    });
    // Mixed-case names are kept as spelled and found in lower case, as PostgreSQL compares them.
    expect(settings.get('datestyle')?.name).toBe('DateStyle');
    expect(settings.has('DateStyle')).toBe(false);
    // 18-only settings: the asynchronous I/O of 18.
    expect(settings.has('io_method')).toBe(has18);
    expect(settings.has('io_workers')).toBe(has18);
    if (has18) {
      expect(settings.get('io_method')).toMatchObject({ context: 'postmaster', type: 'ENUM' });
    }
    // Left out by --describe-config (GUC_NOT_IN_SAMPLE), though a server takes them: see the README.
    expect(settings.has('application_name')).toBe(false);
    expect(settings.has('jit_expressions')).toBe(false);
    // No extension's settings: the bare server binary knows only its own.
    expect([...settings.keys()].filter((n) => n.includes('.'))).toEqual([]);
  });

  it('18.6 has settings 15.18 has not (16 to 18 added them) and lacks some 15.18 has (removed in 16 and 17)', () => {
    const v15 = parseDescribeConfig(fixture('15.18-debian.tsv'));
    const v18 = parseDescribeConfig(fixture('18.6-source.tsv'));
    const added = [...v18.keys()].filter((n) => !v15.has(n));
    const dropped = [...v15.keys()].filter((n) => !v18.has(n));
    expect(added).toEqual(
      expect.arrayContaining([
        'io_method',
        'io_combine_limit',
        'autovacuum_worker_slots',
        'track_cost_delay_timing',
      ]),
    );
    expect(dropped).toEqual(expect.arrayContaining(['old_snapshot_threshold', 'vacuum_defer_cleanup_age']));
  });

  it.each([
    ['a line without tabs', 'shared_buffers postmaster\n'],
    ['a name that is no setting name', 'shared buffers\tpostmaster\tMemory\tINTEGER\t\t\t\t\t\n'],
    ['too few fields', 'shared_buffers\tpostmaster\tMemory\n'],
    ['no setting at all', '\n\n'],
  ])('refuses %s (a format it does not know)', (_what, text) => {
    expect(() => parseDescribeConfig(text)).toThrow(/describe-config/);
  });
});
