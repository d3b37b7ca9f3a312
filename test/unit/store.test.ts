import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/core/results/result-types.js';
import { maskUrl } from '../../src/store/mask-url.js';
import { isPostgresUrl } from '../../src/store/open/open-store.js';
import { formatCommits, renderRunTable } from '../../src/store/run-table.js';
import { documentToStore, resolveFilter, runIdOf, summarize } from '../../src/store/store.js';

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/results/pgperf-15-smoke-select-only.json', import.meta.url), 'utf8'),
) as RunResult;

describe('maskUrl', () => {
  it.each([
    ['postgresql://app:s3cret@db:5432/perf', 'postgresql://app:***@db:5432/perf'],
    ['postgres://app:p%40ss@db/perf', 'postgres://app:***@db/perf'],
    // A raw "@" or "/" in the password (not percent-encoded): everything up to the last "@" goes.
    ['postgresql://app:p@ss/w@db/perf', 'postgresql://app:***@db/perf'],
    ['postgresql://app@db/perf', 'postgresql://app@db/perf'],
    [
      'postgresql://db/perf?user=app&password=hunter2&sslmode=require',
      'postgresql://db/perf?user=app&password=***&sslmode=require',
    ],
    ['postgresql://app:hunter2@[::1/x', 'postgresql://app:***@[::1/x'],
    ['/var/lib/pgperf/store', '/var/lib/pgperf/store'],
  ])('%s -> %s', (url, masked) => {
    expect(maskUrl(url)).toBe(masked);
  });
});

describe('isPostgresUrl', () => {
  it('tells URLs from directories', () => {
    expect(isPostgresUrl('postgresql://x/y')).toBe(true);
    expect(isPostgresUrl(' POSTGRES://x/y')).toBe(true);
    expect(isPostgresUrl('./postgresql-store')).toBe(false);
  });
});

describe('runIdOf', () => {
  it('derives a stable id from start time, host and seed', () => {
    const id = runIdOf(fixture);
    expect(id).toMatch(/^20261123T132303Z-[0-9a-f]{8}$/);
    expect(runIdOf(structuredClone(fixture))).toBe(id);
    const otherHost = structuredClone(fixture);
    otherHost.environment.hostname = 'runner-2';
    expect(runIdOf(otherHost)).not.toBe(id);
    expect(runIdOf(otherHost).slice(0, 17)).toBe(id.slice(0, 17));
  });

  it('keeps an explicit id and refuses one that is not a safe file name', () => {
    expect(runIdOf({ ...fixture, runId: 'nightly-7' })).toBe('nightly-7');
    expect(() => runIdOf({ ...fixture, runId: '../x' })).toThrow(/runId "..\/x" is not a valid run id/);
    expect(() => runIdOf({ ...fixture, startedAt: 'soon' })).toThrow(
      /startedAt "soon" is not an ISO date-time/,
    );
  });
});

describe('resolveFilter', () => {
  it('turns dates into bounds: since inclusive, until a whole day or an instant', () => {
    expect(resolveFilter({ since: '2026-11-01', until: '2026-11-02' })).toEqual({
      sinceMs: Date.parse('2026-11-01T00:00:00Z'),
      untilMs: Date.parse('2026-11-03T00:00:00Z'),
    });
    expect(resolveFilter({ until: '2026-11-02T10:00:00Z' }).untilMs).toBe(
      Date.parse('2026-11-02T10:00:00Z') + 1,
    );
    expect(resolveFilter({ fingerprint: 'ABC' }).fingerprint).toBe('abc');
  });

  it.each([
    [{ since: '2026-13-45' }, /--since must be an ISO date/],
    [{ until: 'tomorrow' }, /--until must be an ISO date .* got 'tomorrow'/],
    [{ fingerprint: 'g1' }, /--fingerprint must be a fingerprint id or its prefix \(hex\), got 'g1'/],
    [{ limit: 1.5 }, /--limit must be a positive integer, got '1.5'/],
    [{ workload: ' ' }, /--workload must not be empty/],
  ])('refuses %j', (filter, message) => {
    expect(() => resolveFilter(filter)).toThrow(message);
  });
});

describe('listing', () => {
  it('summarizes a document and renders the table', () => {
    const doc = documentToStore(
      { ...fixture, source: { base: { ref: 'master', sha: 'a'.repeat(40) }, head: { sha: 'b'.repeat(40) } } },
      'test',
    );
    const entry = summarize(doc, '2026-11-23T14:00:00.000Z');
    expect(entry.commits).toEqual([
      { arm: 'base', ref: 'master', sha: 'a'.repeat(40) },
      { arm: 'head', sha: 'b'.repeat(40) },
    ]);
    expect(formatCommits(entry.commits)).toBe('base master@aaaaaaaaaa, head bbbbbbbbbb');
    const table = renderRunTable([entry]).split('\n');
    expect(table[0]).toBe(
      'ID                         STARTED (UTC)     STATUS    COMMITS                                  WORKLOADS           CELLS  FINGERPRINT',
    );
    expect(table[1]).toBe(
      `${entry.id}  2026-11-23 13:23  complete  base master@aaaaaaaaaa, head bbbbbbbbbb  smoke, select-only      9  ${entry.fingerprint.slice(0, 8)}`,
    );
    expect(renderRunTable([])).toBe('no stored runs match\n');
  });
});
