/**
 * The lexer that cuts pgbench scripts into statements before EXPLAIN (src/postgres/sql-statements.ts): one
 * case per quoting form of PostgreSQL's SQL (a `;`, a quote or a comment opener inside each must neither cut
 * nor glue statements), pgbench's meta-commands and their continuation lines, and the guard that sends
 * EXPLAIN for exactly one statement. The case of issue #40: an apostrophe inside a `/* *\/` comment glued the
 * next statement to a SELECT, and `EXPLAIN (COSTS OFF) SELECT ... ; UPDATE ...` ran the UPDATE.
 */
import { describe, expect, it } from 'vitest';
import { scriptStatements, withValues } from '../../src/drivers/pgbench/statements.js';
import { explainPlan, statementKey } from '../../src/postgres/plan-capture.js';
import {
  notOneStatement,
  scriptPieces,
  sqlTokens,
  statementText,
} from '../../src/postgres/sql-statements.js';

describe('the apostrophe inside a comment (issue #40)', () => {
  const script = [
    '\\set bid random(1, 1 * :scale)',
    "SELECT bbalance FROM pgbench_branches WHERE bid = :bid /* the branch's balance */;",
    'UPDATE pgbench_branches SET bbalance = 1 WHERE bid = :bid;',
    '',
  ].join('\n');

  it('cuts two statements, each explained alone', () => {
    expect(scriptStatements(script)).toEqual([
      'SELECT bbalance FROM pgbench_branches WHERE bid = :bid',
      'UPDATE pgbench_branches SET bbalance = 1 WHERE bid = :bid',
    ]);
  });

  it('EXPLAIN is sent for each alone, never for the two glued together', async () => {
    const sent: string[] = [];
    const target = { psql: (sql: string) => Promise.resolve((sent.push(sql), 'Seq Scan on t')) };
    for (const s of scriptStatements(script)) await explainPlan(target, withValues(s));
    expect(sent).toEqual([
      'EXPLAIN (COSTS OFF) SELECT bbalance FROM pgbench_branches WHERE bid = 1',
      'EXPLAIN (COSTS OFF) UPDATE pgbench_branches SET bbalance = 1 WHERE bid = 1',
    ]);
    // What the old splitter produced: refused before anything is sent.
    const glued =
      "SELECT bbalance FROM pgbench_branches WHERE bid = 1 /* the branch's balance */; UPDATE pgbench_branches SET bbalance = 1 WHERE bid = 1";
    sent.length = 0;
    expect(await explainPlan(target, glued)).toEqual({
      error:
        'not explained: it holds more than one statement (a ; outside quotes and comments); pgperf sends EXPLAIN for one statement only',
    });
    expect(sent).toEqual([]);
  });
});

describe('each quoting form holds a ; and the openers of the others', () => {
  it.each([
    ['-- line comment', "SELECT 1; -- it's; /* not $$ closed\nSELECT 2;", ['SELECT 1', 'SELECT 2']],
    [
      'nested /* */ comments',
      "SELECT 1 /* outer /* inner; it's */ still; a 'comment */ + 1; SELECT 2;",
      ['SELECT 1 + 1', 'SELECT 2'],
    ],
    [
      "'' strings with doubled quotes",
      "SELECT 'it''s; -- /* $$'; SELECT 2;",
      ["SELECT 'it''s; -- /* $$'", 'SELECT 2'],
    ],
    [
      "a backslash in a standard string is plain: '\\' ends it",
      "SELECT 'C:\\'; SELECT 2;",
      ["SELECT 'C:\\'", 'SELECT 2'],
    ],
    [
      "E'' strings with backslash escapes",
      "SELECT E'it\\'s; \\\\'; SELECT e'a\\\\'; SELECT 3;",
      ["SELECT E'it\\'s; \\\\'", "SELECT e'a\\\\'", 'SELECT 3'],
    ],
    [
      'an E that ends an identifier does not make an E string',
      "SELECT typE'x'; SELECT 2;",
      ["SELECT typE'x'", 'SELECT 2'],
    ],
    [
      'double-quoted identifiers with doubled quotes',
      'SELECT "a;""b\'" FROM "t;"; SELECT 2;',
      ['SELECT "a;""b\'" FROM "t;"', 'SELECT 2'],
    ],
    ['$$ dollar quotes', "SELECT $$it's; -- /*$$; SELECT 2;", ["SELECT $$it's; -- /*$$", 'SELECT 2']],
    [
      '$tag$ dollar quotes hold $$ and other tags',
      "DO $fn$ BEGIN PERFORM 'x;'; RAISE NOTICE $$a;$$; END $fn$; SELECT 2;",
      ["DO $fn$ BEGIN PERFORM 'x;'; RAISE NOTICE $$a;$$; END $fn$", 'SELECT 2'],
    ],
    [
      '$1 is a parameter, a$b$ an identifier',
      "SELECT $1, a$b$ FROM t; SELECT '$';",
      ['SELECT $1, a$b$ FROM t', "SELECT '$'"],
    ],
    [
      'a ; inside parentheses does not end the statement',
      'CREATE RULE r AS ON INSERT TO t DO ALSO (SELECT 1; SELECT 2); SELECT 3;',
      ['CREATE RULE r AS ON INSERT TO t DO ALSO (SELECT 1; SELECT 2)', 'SELECT 3'],
    ],
    [
      'a BEGIN ATOMIC function body',
      'CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT CASE WHEN true THEN 2 END; END; SELECT 3;',
      [
        'CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT CASE WHEN true THEN 2 END; END',
        'SELECT 3',
      ],
    ],
    ['BEGIN and END of a transaction are statements', 'BEGIN; SELECT 1; END;', ['BEGIN', 'SELECT 1', 'END']],
    [
      'whitespace inside quotes is kept, outside collapsed',
      'SELECT  \'a   b\',\n  "c  d"\tFROM t;',
      ['SELECT \'a   b\', "c  d" FROM t'],
    ],
  ])('%s', (_what, script, statements) => {
    expect(scriptStatements(script)).toEqual(statements);
  });
});

describe('pgbench meta-commands', () => {
  it.each([
    [
      'a backslash line is no SQL, and continues over lines that end in a backslash',
      "\\set a random(1, \\\n  100) -- it's\nSELECT :a;\n\\sleep 1 ms\n",
      ['SELECT :a'],
    ],
    [
      '\\gset and \\aset end the query before them',
      'SELECT max(a) AS m FROM t \\gset\nSELECT :m AS n \\aset p_\nSELECT :n;',
      ['SELECT max(a) AS m FROM t', 'SELECT :m AS n', 'SELECT :n'],
    ],
    [
      'a backslash inside a string or a comment starts nothing',
      "SELECT E'\\\\set x' /* \\gset */;\n",
      ["SELECT E'\\\\set x'"],
    ],
    [
      '\\; joins statements into one compound statement, as pgbench sends it',
      'SELECT 1 \\; SELECT 2;\n',
      ['SELECT 1 ; SELECT 2'],
    ],
  ])('%s', (_what, script, statements) => {
    expect(scriptStatements(script)).toEqual(statements);
  });

  it('names each meta-command with its text', () => {
    const pieces = scriptPieces('\\set a \\\n 1\nSELECT 1 \\gset\n\\startpipeline\n');
    expect(pieces.map((p) => (p.kind === 'meta' ? `meta ${p.name}: ${p.text}` : `sql (${p.end})`))).toEqual([
      'meta set: \\set a \\\n 1',
      'sql (meta)',
      'meta gset: \\gset',
      'meta startpipeline: \\startpipeline',
    ]);
  });
});

describe('EXPLAIN only ever gets one statement', () => {
  it.each([
    ['SELECT 1', undefined],
    ['SELECT 1;', undefined],
    ["SELECT ';' /* ; */ -- ;", undefined],
    ['SELECT 1; SELECT 2', 'it holds more than one statement (a ; outside quotes and comments)'],
    ['SELECT 1 ; SELECT 2;', 'it holds more than one statement (a ; outside quotes and comments)'],
    ['SELECT 1;;', 'it holds more than one statement (a ; outside quotes and comments)'],
    ['SELECT 1 \\; DELETE FROM t', 'it holds more than one statement (a ; outside quotes and comments)'],
    ["SELECT 'open; DELETE FROM t", 'it ends inside a string'],
    ['SELECT 1 /* open; DELETE FROM t', 'it ends inside a comment'],
    ['SELECT $x$ open; DELETE FROM t', 'it ends inside a string'],
    ['SELECT "open; DELETE FROM t', 'it ends inside a quoted identifier'],
    ['SELECT 1 \\g', 'it holds a backslash outside quotes and comments (a meta-command)'],
    ['  -- only a comment', 'it is empty'],
  ])('%j: %s', async (sql, why) => {
    expect(notOneStatement(sql)).toBe(why);
    const sent: string[] = [];
    const result = await explainPlan({ psql: (s) => Promise.resolve((sent.push(s), 'Result')) }, sql);
    expect(sent).toHaveLength(why ? 0 : 1);
    expect(result).toEqual(why ? { error: expect.stringContaining(why) } : { plan: 'Result' });
  });

  it('a compound \\; statement of a script is listed, and refused at EXPLAIN', async () => {
    const [compound] = scriptStatements('SELECT 1 \\; UPDATE t SET a = 1;');
    const sent: string[] = [];
    const result = await explainPlan(
      { psql: (s) => Promise.resolve((sent.push(s), 'Result')) },
      withValues(compound!),
    );
    expect(sent).toEqual([]);
    expect(result).toMatchObject({ error: expect.stringMatching(/^not explained: it holds more than one/) });
  });
});

describe('tokens', () => {
  it('give back the text they were cut from', () => {
    const text = 'SELECT E\'a\\\'b\', $q$x$q$, "i""d", :v::int, $1 /* c /* n */ */ -- l\n; \\; \'open';
    const tokens = sqlTokens(text);
    expect(tokens.map((t) => t.text).join('')).toBe(text);
    expect(tokens.filter((t) => t.kind !== 'space').map((t) => `${t.kind} ${t.text}`)).toEqual([
      'identifier SELECT',
      "string E'a\\'b'",
      'other ,',
      'dollar-string $q$x$q$',
      'other ,',
      'quoted-identifier "i""d"',
      'other ,',
      'variable :v',
      'other :',
      'other :',
      'identifier int',
      'other ,',
      'other $1',
      'comment /* c /* n */ */',
      'comment -- l',
      'semicolon ;',
      'semicolon \\;',
      "string 'open",
    ]);
    expect(tokens.at(-1)?.unterminated).toBe(true);
  });

  it('statementText drops comments and keeps quoted text', () => {
    expect(statementText(sqlTokens("SELECT /* x */ 'a  -- b'  -- c\n FROM t"))).toBe(
      "SELECT 'a  -- b' FROM t",
    );
  });

  it('variables are replaced outside quotes and comments only', () => {
    expect(withValues('SELECT :a, \':a\', ":a", $$:a$$ /* :a */ FROM t WHERE x = :b::int', { b: '0' })).toBe(
      'SELECT 1, \':a\', ":a", $$:a$$ /* :a */ FROM t WHERE x = 0::int',
    );
  });

  it("statementKey drops comments, as pg_stat_statements' text and the script's meet", () => {
    expect(statementKey("select abalance /* it's */ from t where aid = $1")).toBe(
      statementKey('SELECT abalance FROM t WHERE aid = :aid;'),
    );
  });

  it('is linear: a long script of many meta-commands and statements is read at once', () => {
    const script = '\\set a 1\nSELECT :a; -- x\n'.repeat(20_000);
    const t0 = Date.now();
    expect(scriptStatements(script)).toEqual(['SELECT :a']);
    expect(Date.now() - t0).toBeLessThan(2_000);
  });
});
