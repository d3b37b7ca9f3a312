/**
 * Plan normalisation and the matching of pg_stat_statements' entries to a script's statements, on real
 * PostgreSQL 15 outputs (test/fixtures/plans/README.md says how each was captured).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  normalisePlan,
  parseStatStatements,
  serverError,
  statementKey,
  withStatStatements,
} from '../../../src/postgres/plan-capture.js';
import { BUILTIN_SCRIPT_TEXT, scriptStatements } from '../../../src/drivers/pgbench/statements.js';

const fixture = (name: string) =>
  readFileSync(path.join(import.meta.dirname, '../../fixtures/plans', name), 'utf8');

describe('normalisePlan', () => {
  it.each([
    [
      'plain EXPLAIN: costs and the JIT block go',
      fixture('pg15-explain-costs.txt'),
      'Index Scan using pgbench_accounts_pkey on pgbench_accounts\n  Index Cond: (aid = 1)',
    ],
    [
      'EXPLAIN (ANALYZE, BUFFERS, VERBOSE, SETTINGS): times, buffers, sort memory, settings, query id, planning and JIT go',
      fixture('pg15-explain-analyze-verbose.txt'),
      [
        'Sort',
        '  Output: a.abalance, b.bbalance',
        '  Sort Key: a.abalance',
        '  ->  Nested Loop',
        '        Output: a.abalance, b.bbalance',
        '        Join Filter: (a.bid = b.bid)',
        '        ->  Seq Scan on public.pgbench_branches b',
        '              Output: b.bid, b.bbalance, b.filler',
        '        ->  Index Scan using pgbench_accounts_pkey on public.pgbench_accounts a',
        '              Output: a.aid, a.bid, a.abalance, a.filler',
        '              Index Cond: (a.aid < 100)',
      ].join('\n'),
    ],
    [
      "a session's temporary schema without its number; trailing blanks and empty lines",
      'Seq Scan on pg_temp_3.t   \n\n  Filter: (x = 1)\n',
      'Seq Scan on pg_temp.t\n  Filter: (x = 1)',
    ],
  ])('%s', (_what, text, expected) => {
    expect(normalisePlan(text)).toBe(expected);
  });

  it('keeps what makes plans differ', () => {
    const index = normalisePlan('Index Scan using t_pkey on t\n  Index Cond: (a = 1)');
    const seq = normalisePlan('Seq Scan on t\n  Filter: (a = 1)');
    expect(index).not.toBe(seq);
    // The same plan with and without costs is the same text.
    expect(normalisePlan('Seq Scan on t  (cost=0.00..1.01 rows=1 width=4)\n  Filter: (a = 1)')).toBe(seq);
  });
});

describe('statementKey matches pg_stat_statements to the script', () => {
  const rows = parseStatStatements(fixture('pg15-pg-stat-statements.json'));

  it('reads every entry with its counters (PostgreSQL 13+ names)', () => {
    const select = rows.find((r) => r.query === 'SELECT abalance FROM pgbench_accounts WHERE aid = $1');
    expect(select).toEqual({
      query: 'SELECT abalance FROM pgbench_accounts WHERE aid = $1',
      calls: 20,
      totalTimeMs: expect.closeTo(46.365, 3),
      sharedBlksHit: 80,
      sharedBlksRead: 0,
    });
  });

  it('every statement of tpcb-like finds its entries, and pgbench setup queries none', () => {
    const keys = new Set(rows.map((r) => statementKey(r.query)));
    for (const statement of scriptStatements(BUILTIN_SCRIPT_TEXT['tpcb-like'])) {
      expect(keys.has(statementKey(statement)), statement).toBe(true);
    }
    expect(statementKey('select count(*) from pgbench_branches')).not.toBe(
      statementKey('SELECT abalance FROM pgbench_accounts WHERE aid = :aid'),
    );
  });

  it.each([
    ['UPDATE t SET b = b + :delta WHERE a = :aid;', 'update t set b = b + $1 where a = $2'],
    ['UPDATE t SET b = b + :delta WHERE a = :aid', 'UPDATE t SET b = b + -4000 WHERE a = 17'],
    ['SELECT * FROM t WHERE s = :s AND n > 2.5', "select * from t where s = 'x''y' and n > 3"],
    ['SELECT  a\n FROM t', 'select a from t'],
  ])('%j and %j share a key', (script, tracked) => {
    expect(statementKey(script)).toBe(statementKey(tracked));
  });

  it('keeps identifiers with digits and casts', () => {
    expect(statementKey('SELECT t1.a::int8 FROM t1')).toBe('select t1.a::int8 from t1');
  });

  it('reads total_time before PostgreSQL 13 and leaves nested statements out', () => {
    expect(
      parseStatStatements(
        JSON.stringify([
          { query: 'SELECT 1', calls: 2, total_time: 1.5, shared_blks_hit: 3, shared_blks_read: 1 },
          { query: 'SELECT 2', calls: 1, total_exec_time: 1, toplevel: false },
        ]),
      ),
    ).toEqual([{ query: 'SELECT 1', calls: 2, totalTimeMs: 1.5, sharedBlksHit: 3, sharedBlksRead: 1 }]);
  });
});

describe('withStatStatements', () => {
  it.each([
    [undefined, 'pg_stat_statements'],
    ['', 'pg_stat_statements'],
    ['pg_prewarm', 'pg_prewarm,pg_stat_statements'],
    ["'pg_prewarm, auto_explain'", 'pg_prewarm,auto_explain,pg_stat_statements'],
    ['pg_stat_statements', 'pg_stat_statements'],
  ])('adds the library to %j', (current, expected) => {
    expect(withStatStatements(current)).toBe(expected);
  });
});

describe('serverError', () => {
  it.each([
    [
      'arm head/plans: psql "EXPLAIN (COSTS OFF) SELECT x FROM nowhere" failed (exit code 1): psql:<stdin>:1: ERROR:  relation "nowhere" does not exist\nLINE 1: EXPLAIN (COSTS OFF) SELECT x FROM nowhere\n                                          ^; pgperf\'s own queries fail like this when ...',
      'ERROR:  relation "nowhere" does not exist',
    ],
    [
      'arm base/plans: psql "EXPLAIN (COSTS OFF) DELETE FROM t" failed (exit code 1): ERROR:  permission denied for table t; pgperf\'s own queries fail like this when ...',
      'ERROR:  permission denied for table t',
    ],
    ['psql could not be started (ENOENT)', 'psql could not be started (ENOENT)'],
  ])("%#: the server's words", (message, expected) => {
    expect(serverError(message)).toBe(expected);
  });
});
