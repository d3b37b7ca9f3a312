/**
 * A statement's plan and its pg_stat_statements counters on one server, for the plan phase
 * (docs/plans.md, src/run/counted/plan-phase.ts): `EXPLAIN (COSTS OFF)` normalised so that equal text
 * means the same plan, whether an install has pg_stat_statements (contrib), and reading its counters
 * matched to the statements as the workload's script writes them.
 */
import { access } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../core/util/errors.js';
import { installRunner, type InstallDeps } from './cluster/install-runner.js';
import { probeOptions } from '../machine/os/process.js';
import { notOneStatement, sqlTokens, statementText } from './sql-statements.js';
import { parsePlannerMemory, type PlannerMemory } from './memory/planner-memory.js';

/** The contrib module that counts per-statement calls, time and blocks. */
export const STAT_STATEMENTS = 'pg_stat_statements';

/**
 * Lines of EXPLAIN output that describe the run, not the plan (only some EXPLAIN options print them;
 * removed all the same, so that a plan taken with other options still compares).
 */
const RUN_SPECIFIC_LINE = new RegExp(
  `^\\s*(?:${[
    'Planning Time',
    'Execution Time',
    'Planning',
    'Query Identifier',
    'JIT',
    'Settings',
    'Serialization',
    'Memory',
    'Buffers',
    'I/O Timings',
    'WAL',
    'Worker \\d+',
    'Workers Launched',
    'Sort Method',
    'Heap Fetches',
    'Heap Blocks',
    'Rows Removed by [A-Za-z ]+',
    'Buckets',
    'Hits',
    'Full-sort Groups',
    'Pre-sorted Groups',
    'Storage',
    'Trigger [^:]+',
  ].join('|')}):(?:\\s|$)`,
);
/** Per-node figures of a run: costs, row estimates, actual times (COSTS OFF prints none; ANALYZE would). */
const RUN_FIGURES = /\s*\((?:cost|actual|never executed)[^)]*\)/g;

/**
 * EXPLAIN output as the plan alone: run-specific lines and figures removed, a session's temporary schema
 * (pg_temp_3) without its number, trailing blanks and empty lines dropped. Equal results mean the same plan.
 *
 * @example normalisePlan('Index Scan using t_pkey on t  (cost=0.29..8.30 rows=1 width=4)\nPlanning Time: 0.1 ms')
 *   === 'Index Scan using t_pkey on t'
 */
export function normalisePlan(text: string): string {
  const lines: string[] = [];
  let skipping: number | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw
      .replace(RUN_FIGURES, '')
      .replace(/\bpg_temp_\d+\b/g, 'pg_temp')
      .trimEnd();
    if (line.trim() === '') continue;
    const indent = line.length - line.trimStart().length;
    // A run-specific block ("Planning:", "JIT:") goes with the lines indented under it.
    if (skipping !== undefined && indent > skipping) continue;
    skipping = undefined;
    if (RUN_SPECIFIC_LINE.test(line)) {
      skipping = indent;
      continue;
    }
    lines.push(line);
  }
  return lines.join('\n');
}

/**
 * A statement's text as a key that pg_stat_statements' normalised query text and the script's text share:
 * comments dropped, lower case, whitespace collapsed, no final semicolon, and every value (a `:variable`, a `$n` parameter, a
 * number or a quoted string, with its sign) a `?`.
 *
 * @example statementKey('UPDATE t SET b = b + :delta WHERE a = :aid;') === statementKey('update t set b = b + $1 where a = $2')
 */
export function statementKey(text: string): string {
  return statementText(sqlTokens(text))
    .replace(/'(?:[^']|'')*'/g, '?')
    .replace(/\$\d+/g, '?')
    .replace(/(?<![:\w]):[A-Za-z_]\w*/g, '?')
    .replace(/(?<![\w.])\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w.])/gi, '?')
    .replace(/([=<>(,+*/-]\s*)-\s*\?/g, '$1?')
    .replace(/\s+/g, ' ')
    .replace(/\s*;\s*$/, '')
    .trim()
    .toLowerCase();
}

/**
 * True when the install of `binDir` has pg_stat_statements: its control file in the extension directory and
 * its library in the library directory, where `pg_config` says they are (else the usual places beside the
 * bin dir). Both are needed: the library is preloaded at start, the control file makes the extension.
 * pg_config is the install's own program: as root, it runs as the run-as user (install-runner.ts).
 */
export async function hasStatStatements(binDir: string, deps: InstallDeps): Promise<boolean> {
  const dirs = await installDirs(binDir, deps);
  const control = await anyExists(
    dirs.share.map((d) => path.join(d, 'extension', `${STAT_STATEMENTS}.control`)),
  );
  const library = await anyExists(dirs.lib.map((d) => path.join(d, `${STAT_STATEMENTS}.so`)));
  return control && library;
}

async function anyExists(files: readonly string[]): Promise<boolean> {
  for (const file of files) {
    if (
      await access(file).then(
        () => true,
        () => false,
      )
    )
      return true;
  }
  return false;
}

/** The share and library directories to look in: pg_config's, else those of a prefix or a Debian install. */
async function installDirs(binDir: string, deps: InstallDeps): Promise<{ share: string[]; lib: string[] }> {
  const res = await installRunner(deps)
    .run(path.join(binDir, 'pg_config'), ['--sharedir', '--pkglibdir'], probeOptions(deps.signal))
    .catch(() => undefined);
  const [share, lib] = res?.exitCode === 0 ? res.stdout.trim().split('\n') : [];
  const prefix = path.dirname(binDir);
  const major = /\/postgresql\/(\d+)\/bin\/?$/.exec(binDir)?.[1];
  return {
    share: [
      ...(share ? [share] : []),
      path.join(prefix, 'share', 'postgresql'),
      path.join(prefix, 'share'),
      ...(major ? [`/usr/share/postgresql/${major}`] : []),
    ],
    lib: [...(lib ? [lib] : []), path.join(prefix, 'lib', 'postgresql'), path.join(prefix, 'lib')],
  };
}

/** `shared_preload_libraries` with pg_stat_statements added to what it already loads. */
export function withStatStatements(current: string | number | boolean | undefined): string {
  const names = String(current ?? '')
    .replace(/^'|'$/g, '')
    .split(',')
    .map((n) => n.trim().replace(/^"|"$/g, ''))
    .filter((n) => n !== '');
  return [...new Set([...names, STAT_STATEMENTS])].join(',');
}

/** A server pgperf can send SQL to (PgCluster): tuples-only output, or an error that quotes the server's. */
export interface SqlTarget {
  psql(sql: string): Promise<string>;
}

/**
 * The statement's plan (`EXPLAIN (COSTS OFF)`, normalised), or the server's reason why there is none. With
 * `memory` (PostgreSQL 17+), `EXPLAIN (COSTS OFF, MEMORY)`: the same plan and the planner's memory.
 */
export async function explainPlan(
  target: SqlTarget,
  sql: string,
  options: { memory?: boolean } = {},
): Promise<{ plan: string; plannerMemory?: PlannerMemory } | { error: string }> {
  // EXPLAIN without ANALYZE runs nothing, but psql -c sends its whole text as one query string, and the
  // server runs every statement of it: EXPLAIN is only ever sent for exactly one statement.
  const why = notOneStatement(sql);
  if (why) return { error: `not explained: ${why}; pgperf sends EXPLAIN for one statement only` };
  try {
    const text = await target.psql(`EXPLAIN (COSTS OFF${options.memory ? ', MEMORY' : ''}) ${sql}`);
    const plannerMemory = options.memory ? parsePlannerMemory(text) : undefined;
    return { plan: normalisePlan(text), ...(plannerMemory ? { plannerMemory } : {}) };
  } catch (e) {
    return { error: serverError(errorMessage(e)) };
  }
}

/**
 * The server's own words in the message of a failed PgCluster.psql ("ERROR:  relation "t" does not exist":
 * its line, without the hint pgperf adds), else the whole message.
 */
export function serverError(message: string): string {
  const line = /\b(?:ERROR|FATAL):\s.*$/m.exec(message)?.[0];
  return line ? line.replace(/; pgperf's own queries .*$/, '').trim() : message;
}

/** One pg_stat_statements entry, with the names of every version (total_time before 13). */
export interface StatStatementsRow {
  query: string;
  calls: number;
  totalTimeMs: number;
  sharedBlksHit: number;
  sharedBlksRead: number;
}

/** Creates the extension in the benchmark database (its library preloaded); throws with the reason. */
export async function createStatStatements(target: SqlTarget): Promise<void> {
  await target.psql(`CREATE EXTENSION IF NOT EXISTS ${STAT_STATEMENTS}`);
}

/** Empties pg_stat_statements, so the next reading counts only what ran since. */
export async function resetStatStatements(target: SqlTarget): Promise<void> {
  await target.psql(`SELECT ${STAT_STATEMENTS}_reset()`);
}

/** Every top-level entry of the benchmark database, its counters summed over users. */
export async function readStatStatements(target: SqlTarget): Promise<StatStatementsRow[]> {
  return parseStatStatements(
    await target.psql(
      `SELECT coalesce(json_agg(row_to_json(s)), '[]') FROM ${STAT_STATEMENTS} s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = current_database()`,
    ),
  );
}

/** pg_stat_statements rows (json_agg of row_to_json) as counters; nested ones (toplevel false) left out. */
export function parseStatStatements(json: string): StatStatementsRow[] {
  const rows = JSON.parse(json.trim() || '[]') as Array<Record<string, unknown>>;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return rows
    .filter((r) => r.toplevel !== false && typeof r.query === 'string')
    .map((r) => ({
      query: r.query as string,
      calls: num(r.calls),
      totalTimeMs: num(r.total_exec_time ?? r.total_time),
      sharedBlksHit: num(r.shared_blks_hit),
      sharedBlksRead: num(r.shared_blks_read),
    }));
}
