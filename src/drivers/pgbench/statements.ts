/**
 * The SQL statements a pgbench workload runs, for the plan phase (docs/plans.md): the builtin scripts' (as
 * `pgbench --show-script` prints them: the same text in PostgreSQL 15 and 18) or the custom scripts', read
 * with pgbench's rules (src/postgres/sql-statements.ts): meta-commands (`\set`, `\sleep`, `\startpipeline`,
 * ...) start with a backslash and are skipped; a statement runs to its semicolon (over several lines) or to a
 * `\gset` / `\aset` that ends it; comments, strings, quoted identifiers and dollar quotes are read whole. Each statement has a plannable form: its `:variables`
 * replaced by representative values (1; the builtins' `:delta` 0), so EXPLAIN can plan it.
 */
import { readRegularFile } from '../../machine/os/regular-file.js';
import { scriptPieces, sqlTokens, statementText } from '../../postgres/sql-statements.js';
import type { WorkloadStatement } from '../common/driver.js';
import type { PgbenchWorkload } from './pgbench-workload.js';

/** The builtins' random keys and change of balance. */
const KEYS = `\\set aid random(1, 100000 * :scale)
\\set bid random(1, 1 * :scale)
\\set tid random(1, 10 * :scale)
\\set delta random(-5000, 5000)
`;
const ACCOUNT = `UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`;
const HISTORY = `INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
`;

/** The builtin scripts, as pgbench prints them with --show-script (15 and 18 alike). */
export const BUILTIN_SCRIPT_TEXT: Readonly<Record<NonNullable<PgbenchWorkload['builtin']>, string>> = {
  'tpcb-like': `${KEYS}BEGIN;
${ACCOUNT}UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
${HISTORY}END;
`,
  'simple-update': `${KEYS}BEGIN;
${ACCOUNT}${HISTORY}END;
`,
  'select-only': `\\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`,
};

/** The value a variable gets in the plannable form when it has none of its own. */
const DEFAULT_VALUE = '1';
/** The builtins' variables: one account, branch and teller, and a change of balance of 0. */
export const REPRESENTATIVE_VALUES: Readonly<Record<string, string>> = {
  aid: '1',
  bid: '1',
  tid: '1',
  delta: '0',
};

/** Statements that have a plan (EXPLAIN takes them); the rest (BEGIN, END, SET, VACUUM, ...) have none. */
const PLANNABLE = /^(?:select|insert|update|delete|merge|with|values|table)\b/i;

/**
 * The statements of a pgbench script, in order, each once: comments dropped, whitespace outside quotes
 * collapsed, without the final semicolon. Read by the lexer of src/postgres/sql-statements.ts (quotes,
 * dollar quotes, nested comments, meta-commands as pgbench reads them), so that a quote inside a comment
 * cannot glue two statements into one.
 *
 * @example scriptStatements('\\set aid random(1, 10)\nSELECT 1\n  FROM t WHERE a = :aid;\n') ===
 *   ['SELECT 1 FROM t WHERE a = :aid']
 */
export function scriptStatements(text: string): string[] {
  const found = new Set<string>();
  for (const piece of scriptPieces(text)) {
    if (piece.kind === 'sql') found.add(statementText(piece.tokens));
  }
  return [...found];
}

/** True for a statement EXPLAIN can plan. */
export function isPlannable(statement: string): boolean {
  return PLANNABLE.test(statement.trim());
}

/**
 * The statement with each `:variable` outside quotes and comments replaced by its value in `values`, else 1
 * (a `::type` cast is not a variable).
 *
 * @example withValues('SELECT :a::int + :b', { b: '0' }) === 'SELECT 1::int + 0'
 */
export function withValues(statement: string, values: Readonly<Record<string, string>> = {}): string {
  return sqlTokens(statement)
    .map((t) => (t.kind === 'variable' ? (values[t.text.slice(1)] ?? DEFAULT_VALUE) : t.text))
    .join('');
}

/** One statement of a workload and, when it has a plan, its plannable form. */
/** Every statement of the workload's scripts (builtin or custom, each once), with its plannable form. */
export async function pgbenchStatements(w: PgbenchWorkload): Promise<WorkloadStatement[]> {
  const texts = w.builtin
    ? [BUILTIN_SCRIPT_TEXT[w.builtin]]
    : await Promise.all((w.scripts ?? []).map((s) => readRegularFile(s.file)));
  const values = w.builtin ? REPRESENTATIVE_VALUES : {};
  const statements = [...new Set(texts.flatMap((t) => scriptStatements(t)))];
  return statements.map((statement) =>
    isPlannable(statement) ? { statement, explained: withValues(statement, values) } : { statement },
  );
}
