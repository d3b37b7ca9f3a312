/**
 * A synthetic first-parent history of 12 commits on the PostgreSQL 18 release (testkit/pg-source.ts's base
 * commit), the attribution's test and bench range (docs/attribute.md): docs-only edits, comment edits in
 * backend .c files (some shift lines, so `__LINE__` immediates in ereport calls change; one rewrites a line
 * in place, the same compiled code), three commits that each add a different amount of per-query CPU work in
 * a different function every select-only prepared transaction runs, and one that removes most of the first's.
 *
 * The amounts are chosen so that no run of consecutive cost-moving commits cancels to below a 1 % floor
 * (a loop iteration is a handful of instructions; a select-only transaction about 41,000): with u the
 * instructions of one iteration, the first adds 1000u (about +12 %), the second 300u, the third 200u and
 * the removal -800u; any consecutive run holding the removal moves -800u, -600u, -300u or +700u.
 *
 * Fixed identity and dates (pg-source.ts's `git`): the same shas on every machine, so a warm build cache
 * (testCacheDir()) hits. The repository is the test kit's own (not pg-source.ts's "pg18", which other
 * tests move between branches).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { git, prepareBaseRepo } from './pg-source.js';

/** The role of a commit of the history. */
export type HistoryKind = 'docs' | 'comment' | 'comment-in-place' | 'work' | 'removal';

export interface HistoryCommit {
  sha: string;
  subject: string;
  kind: HistoryKind;
  /** Position on the line (1: the first commit after base). */
  position: number;
}

export interface PgHistoryRepo {
  /** The repository (a plain directory: pass it as --repo). */
  dir: string;
  /** Branch "base": the release as in the tarball. */
  baseRef: string;
  baseSha: string;
  /** Branch "history": base plus the 12 commits. */
  headRef: string;
  headSha: string;
  /** The 12 commits after base, oldest first. */
  commits: HistoryCommit[];
  /** The four commits that move the instructions per transaction (work, work, work, removal). */
  culprits: HistoryCommit[];
}

/** Extra loop iterations per transaction of each work commit, and what the removal leaves of the first. */
export const WORK_ITERATIONS = { bind: 1000, portalRun: 300, executorStart: 200, bindAfterRemoval: 200 };

interface Step {
  kind: HistoryKind;
  subject: string;
  file: string;
  edit: (text: string) => string;
}

/** `text` with `insert` after `anchor`, the first anchor after `after` (both must be there). */
function insertAfter(file: string, after: string, anchor: string, insert: string) {
  return (text: string): string => {
    const from = text.indexOf(after);
    const at = from < 0 ? -1 : text.indexOf(anchor, from);
    if (at < 0) throw new Error(`pg-history: ${file} has no '${anchor.trim()}' after '${after.trim()}'`);
    const end = at + anchor.length;
    return text.slice(0, end) + insert + text.slice(end);
  };
}

/** A volatile loop of `n` iterations, a block statement in a backend function. */
function spin(label: string, n: number): string {
  return (
    `\t/* pgperf fixture (${label}): extra CPU work on every call. */\n` +
    '\t{\n\t\tvolatile uint32 pgperf_spin = 0;\n\n' +
    `\t\tfor (int pgperf_i = 0; pgperf_i < ${n}; pgperf_i++)\n\t\t\tpgperf_spin += pgperf_i;\n\t}\n\n`
  );
}

/** The header comment's first line of a backend .c file, and a line inserted after it (lines shift). */
const HEADER = '/*-------------------------------------------------------------------------\n';
const commentLines = (file: string, n: number) =>
  insertAfter(file, '', HEADER, ` * pgperf fixture: comment edit ${n}; the lines below move down.\n *\n`);

/** A sentence appended to a docs file (an SGML comment: the docs still build). */
const docsLine = (n: number) => (text: string) => `${text}<!-- pgperf fixture: docs edit ${n}. -->\n`;

const POSTGRES_C = 'src/backend/tcop/postgres.c';
const BIND = 'exec_bind_message(StringInfo input_message)\n{';
const BIND_ANCHOR = '\tstmt_name = pq_getmsgstring(input_message);\n';

const STEPS: Step[] = [
  { kind: 'docs', subject: 'docs: perform.sgml', file: 'doc/src/sgml/perform.sgml', edit: docsLine(1) },
  {
    kind: 'comment',
    subject: 'comment: planner.c header',
    file: 'src/backend/optimizer/plan/planner.c',
    edit: commentLines('planner.c', 2),
  },
  {
    kind: 'work',
    subject: `work: ${WORK_ITERATIONS.bind} iterations in exec_bind_message`,
    file: POSTGRES_C,
    edit: insertAfter(POSTGRES_C, BIND, BIND_ANCHOR, `\n${spin('bind', WORK_ITERATIONS.bind)}`),
  },
  { kind: 'docs', subject: 'docs: config.sgml', file: 'doc/src/sgml/config.sgml', edit: docsLine(4) },
  {
    kind: 'comment-in-place',
    subject: 'comment: execMain.c copyright line, in place',
    file: 'src/backend/executor/execMain.c',
    edit: (text) => {
      const line = ' * Portions Copyright (c) 1996-2025, PostgreSQL Global Development Group\n';
      if (!text.includes(line)) throw new Error(`pg-history: execMain.c has no '${line.trim()}'`);
      return text.replace(line, line.replace('Group', 'Group (pgperf fixture)'));
    },
  },
  {
    kind: 'work',
    subject: `work: ${WORK_ITERATIONS.portalRun} iterations in PortalRun`,
    file: 'src/backend/tcop/pquery.c',
    edit: insertAfter(
      'pquery.c',
      'PortalRun(Portal portal, long count, bool isTopLevel,',
      '\tTRACE_POSTGRESQL_QUERY_EXECUTE_START();\n',
      `\n${spin('PortalRun', WORK_ITERATIONS.portalRun)}`,
    ),
  },
  {
    kind: 'comment',
    subject: 'comment: postgres.c header (moves exec_bind_message)',
    file: POSTGRES_C,
    edit: commentLines('postgres.c', 7),
  },
  {
    kind: 'docs',
    subject: 'docs: README',
    file: 'README.md',
    edit: (t) => `${t}\n(pgperf fixture: docs edit 8.)\n`,
  },
  {
    kind: 'work',
    subject: `work: ${WORK_ITERATIONS.executorStart} iterations in standard_ExecutorStart`,
    file: 'src/backend/executor/execMain.c',
    edit: insertAfter(
      'execMain.c',
      'standard_ExecutorStart(QueryDesc *queryDesc, int eflags)\n{',
      '\tAssert(GetActiveSnapshot() == queryDesc->snapshot);\n',
      `\n${spin('ExecutorStart', WORK_ITERATIONS.executorStart)}`,
    ),
  },
  {
    kind: 'comment',
    subject: 'comment: varlena.c header',
    file: 'src/backend/utils/adt/varlena.c',
    edit: commentLines('varlena.c', 10),
  },
  {
    kind: 'removal',
    subject: `removal: exec_bind_message's work down to ${WORK_ITERATIONS.bindAfterRemoval} iterations`,
    file: POSTGRES_C,
    edit: (text) => {
      const loop = `pgperf_i < ${WORK_ITERATIONS.bind}; pgperf_i++`;
      if (!text.includes(loop)) throw new Error(`pg-history: postgres.c has no '${loop}'`);
      return text.replace(loop, `pgperf_i < ${WORK_ITERATIONS.bindAfterRemoval}; pgperf_i++`);
    },
  },
  {
    kind: 'docs',
    subject: 'docs: pgbench.sgml',
    file: 'doc/src/sgml/ref/pgbench.sgml',
    edit: docsLine(12),
  },
];

/**
 * The history repository at `dir` (the tarball's base made once, then reused; the 12 commits remade on
 * branch "history" each time, with the same shas).
 */
export async function preparePgHistoryRepo(input: { dir: string; major?: number }): Promise<PgHistoryRepo> {
  const dir = input.dir;
  await prepareBaseRepo({ major: input.major ?? 18, dir });
  await git(dir, ['checkout', '--quiet', '--force', '-B', 'history', 'base']);
  const commits: HistoryCommit[] = [];
  for (const [i, step] of STEPS.entries()) {
    const file = path.join(dir, step.file);
    await writeFile(file, step.edit(await readFile(file, 'utf8')));
    const subject = `${step.subject} (pgperf fixture ${i + 1})`;
    await git(dir, ['commit', '--quiet', '--all', '--message', subject]);
    const sha = (await git(dir, ['rev-parse', 'HEAD'])).stdout.trim();
    commits.push({ sha, subject, kind: step.kind, position: i + 1 });
  }
  await git(dir, ['checkout', '--quiet', 'base']);
  return {
    dir,
    baseRef: 'base',
    baseSha: (await git(dir, ['rev-parse', 'base'])).stdout.trim(),
    headRef: 'history',
    headSha: commits.at(-1)!.sha,
    commits,
    culprits: commits.filter((c) => c.kind === 'work' || c.kind === 'removal'),
  };
}
