/**
 * The statements of pgbench workloads for the plan phase: the builtin scripts (checked against the text
 * pgbench 15 prints, test/fixtures/plans/pgbench-15-show-script.txt) and custom scripts read with pgbench's
 * rules (meta-commands skipped, statements over several lines, \gset, comments, quotes), each with its
 * plannable form.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_SCRIPT_TEXT,
  isPlannable,
  pgbenchStatements,
  scriptStatements,
  withValues,
} from '../../../src/drivers/pgbench/statements.js';
import type { PgbenchWorkload } from '../../../src/drivers/pgbench/pgbench-workload.js';
import { pgbenchWorkloadSchema } from '../../../src/drivers/pgbench/pgbench-workload.js';
import { useTmpDir } from '../../helpers/tmp-dir.js';

const FIXTURE = path.join(import.meta.dirname, '../../fixtures/plans/pgbench-15-show-script.txt');
const tmp = useTmpDir('pgperf-plan-statements-');

/** The scripts of `pgbench --show-script` output, by name (each after its "-- name: <builtin: ...>" line). */
function shownScripts(text: string): Record<string, string> {
  const scripts: Record<string, string> = {};
  let name: string | undefined;
  for (const line of text.split('\n')) {
    const header = /^-- ([a-z-]+): <builtin: /.exec(line);
    if (header) name = header[1]!;
    else if (name && line !== '') scripts[name] = `${scripts[name] ?? ''}${line}\n`;
  }
  return scripts;
}

function workload(fields: Record<string, unknown>): PgbenchWorkload {
  return pgbenchWorkloadSchema.parse({ name: 'w', tool: 'pgbench', clients: [1], ...fields });
}

describe('builtin scripts', () => {
  it('are the text pgbench 15 prints with --show-script', () => {
    expect(shownScripts(readFileSync(FIXTURE, 'utf8'))).toEqual(BUILTIN_SCRIPT_TEXT);
  });

  it.each([
    ['select-only', ['SELECT abalance FROM pgbench_accounts WHERE aid = 1']],
    [
      'simple-update',
      [
        'UPDATE pgbench_accounts SET abalance = abalance + 0 WHERE aid = 1',
        'SELECT abalance FROM pgbench_accounts WHERE aid = 1',
        'INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (1, 1, 1, 0, CURRENT_TIMESTAMP)',
      ],
    ],
    [
      'tpcb-like',
      [
        'UPDATE pgbench_accounts SET abalance = abalance + 0 WHERE aid = 1',
        'SELECT abalance FROM pgbench_accounts WHERE aid = 1',
        'UPDATE pgbench_tellers SET tbalance = tbalance + 0 WHERE tid = 1',
        'UPDATE pgbench_branches SET bbalance = bbalance + 0 WHERE bid = 1',
        'INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (1, 1, 1, 0, CURRENT_TIMESTAMP)',
      ],
    ],
  ])('%s: its statements, planned with aid = bid = tid = 1 and delta = 0', async (builtin, explained) => {
    const statements = await pgbenchStatements(workload({ builtin }));
    expect(statements.flatMap((s) => s.explained ?? [])).toEqual(explained);
    // BEGIN and END are statements too (pg_stat_statements counts them), with no plan.
    const unplanned = statements.filter((s) => s.explained === undefined).map((s) => s.statement);
    expect(unplanned).toEqual(builtin === 'select-only' ? [] : ['BEGIN', 'END']);
    expect(statements.find((s) => s.statement.startsWith('SELECT'))?.statement).toBe(
      'SELECT abalance FROM pgbench_accounts WHERE aid = :aid',
    );
  });
});

describe('custom scripts', () => {
  it.each([
    [
      'meta-commands skipped, continued over lines',
      '\\set a random(1, \\\n  100)\n\\sleep 1 ms\nSELECT * FROM t WHERE a = :a;\n',
      ['SELECT * FROM t WHERE a = :a'],
    ],
    [
      'a statement over several lines, whitespace collapsed',
      'SELECT x\n  FROM t\n  WHERE a = :a\n    AND b = 2;\n',
      ['SELECT x FROM t WHERE a = :a AND b = 2'],
    ],
    [
      'two statements on one line, and the last one without a semicolon',
      'BEGIN; UPDATE t SET x = 1;\nSELECT 1',
      ['BEGIN', 'UPDATE t SET x = 1', 'SELECT 1'],
    ],
    [
      '\\gset and \\aset end the query before them',
      'SELECT max(a) AS m FROM t \\gset\nSELECT :m + 1 AS n \\aset\nSELECT :n;\n',
      ['SELECT max(a) AS m FROM t', 'SELECT :m + 1 AS n', 'SELECT :n'],
    ],
    [
      'comments, and quotes that hold ; and --',
      '-- a comment; not SQL\nSELECT \'a;b--c\' FROM t; -- trailing\nSELECT "x;y" FROM t;\n',
      ["SELECT 'a;b--c' FROM t", 'SELECT "x;y" FROM t'],
    ],
    [
      'each statement once, pipelines skipped',
      '\\startpipeline\nSELECT 1;\nSELECT 1;\n\\endpipeline\n',
      ['SELECT 1'],
    ],
  ])('%s', (_what, text, expected) => {
    expect(scriptStatements(text)).toEqual(expected);
  });

  it('every script of a workload, once each; variables become 1', async () => {
    const a = path.join(tmp(), 'a.sql');
    const b = path.join(tmp(), 'b.sql');
    await writeFile(a, '\\set id random(1, 10)\nSELECT * FROM t WHERE id = :id::int;\nVACUUM t;\n');
    await writeFile(b, "SELECT * FROM t WHERE id = :id::int;\nINSERT INTO t VALUES (:id, ':id');\n");
    const statements = await pgbenchStatements(workload({ scripts: [{ file: a }, { file: b, weight: 2 }] }));
    expect(statements).toEqual([
      { statement: 'SELECT * FROM t WHERE id = :id::int', explained: 'SELECT * FROM t WHERE id = 1::int' },
      { statement: 'VACUUM t' },
      { statement: "INSERT INTO t VALUES (:id, ':id')", explained: "INSERT INTO t VALUES (1, ':id')" },
    ]);
  });
});

describe('plannable forms', () => {
  it.each([
    ['SELECT :a::int + :b', { b: '0' }, 'SELECT 1::int + 0'],
    ['SELECT \':a\', ":b" FROM t WHERE x = :x', {}, 'SELECT \':a\', ":b" FROM t WHERE x = 1'],
    ['SELECT arr[1:2] FROM t', {}, 'SELECT arr[1:2] FROM t'],
    ['SELECT :client_id', {}, 'SELECT 1'],
  ])('withValues(%j)', (statement, values, expected) => {
    expect(withValues(statement, values)).toBe(expected);
  });

  it.each([
    ['SELECT 1', true],
    ['  with x as (select 1) select * from x', true],
    ['INSERT INTO t VALUES (1)', true],
    ['UPDATE t SET a = 1', true],
    ['DELETE FROM t', true],
    ['VALUES (1)', true],
    ['BEGIN', false],
    ['END', false],
    ['SET enable_seqscan = off', false],
    ['VACUUM t', false],
    ['SELECTIVE', false],
  ])('isPlannable(%j) is %s', (statement, expected) => {
    expect(isPlannable(statement)).toBe(expected);
  });
});
