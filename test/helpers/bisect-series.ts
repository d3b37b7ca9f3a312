/**
 * A series of commits on top of the PostgreSQL test repository (testkit/pg-source.ts) for bisection tests: five
 * commits after base, of which exactly one (SLOW_COMMIT_INDEX) makes every statement slower by sleeping
 * SLOW_MS milliseconds in standard_ExecutorRun; the others touch a README or a comment. Fixed author and dates, so the
 * shas, and with them the build cache, are the same on every run.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { git, preparePgSourceRepo, type PgSourceRepo } from '../../testkit/pg-source.js';

/** 1-based position of the slow commit after base. */
export const SLOW_COMMIT_INDEX = 3;
/** The slow commit's sleep per ExecutorRun call. */
export const SLOW_MS = 50;

const EXECUTOR = 'src/backend/executor/execMain.c';
const RUN_START =
  'standard_ExecutorRun(QueryDesc *queryDesc,\n\t\t\t\t\t ScanDirection direction, uint64 count)\n{\n';

export interface BisectSeries {
  repo: PgSourceRepo;
  branch: string;
  /** base first, then the five commits, oldest first. */
  shas: string[];
  subjects: string[];
}

type Change = { subject: string; file: string; edit: (text: string) => string };

const CHANGES: Change[] = [
  {
    subject: 'README: mention the bisect fixture',
    file: 'README.md',
    edit: (t) => `${t}\nBisect fixture, commit 1.\n`,
  },
  {
    subject: 'int.c: reword a comment',
    file: 'src/backend/utils/adt/int.c',
    edit: (t) => `${t}\n/* bisect fixture: a harmless comment (commit 2). */\n`,
  },
  {
    subject: `executor: sleep ${SLOW_MS} ms in every ExecutorRun (the regression)`,
    file: EXECUTOR,
    edit: (t) => {
      // After the declarations and the first check of standard_ExecutorRun (no statement before a declaration).
      const start = t.indexOf(RUN_START);
      const check = '\tAssert(queryDesc != NULL);\n';
      const at = start < 0 ? -1 : t.indexOf(check, start);
      if (at < 0) throw new Error(`${EXECUTOR}: standard_ExecutorRun not found where expected`);
      const end = at + check.length;
      return `${t.slice(0, end)}\tpg_usleep(${SLOW_MS * 1000}L);\t/* bisect fixture: the slowdown */\n${t.slice(end)}`;
    },
  },
  { subject: 'README: one more line', file: 'README.md', edit: (t) => `${t}Bisect fixture, commit 4.\n` },
  {
    subject: 'int.c: another harmless comment',
    file: 'src/backend/utils/adt/int.c',
    edit: (t) => `${t}/* bisect fixture: commit 5. */\n`,
  },
];

/** The test repository at `dir` with branch "bisect" (recreated identically on every call). */
export async function prepareBisectSeries(dir: string): Promise<BisectSeries> {
  const repo = await preparePgSourceRepo({ major: 18, dir });
  await git(dir, ['checkout', '--quiet', '--force', '-B', 'bisect', 'base']);
  for (const change of CHANGES) {
    const file = path.join(dir, change.file);
    const before = await readFile(file, 'utf8').catch(() => '');
    await writeFile(file, change.edit(before));
    await git(dir, ['add', change.file]);
    await git(dir, ['commit', '--quiet', '--message', change.subject]);
  }
  const log = await git(dir, ['log', '--reverse', '--format=%H%x09%s', 'base..bisect']);
  const rows = log.stdout
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));
  await git(dir, ['checkout', '--quiet', 'base']);
  return {
    repo,
    branch: 'bisect',
    shas: [repo.baseSha, ...rows.map((r) => r[0]!)],
    subjects: [`base: ${path.basename(repo.tarball)}`, ...rows.map((r) => r[1]!)],
  };
}
