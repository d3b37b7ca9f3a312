/**
 * The commits a bisection searches: good, then every commit on the first-parent line from good to bad,
 * oldest first, read from the build cache's mirror of the repository (so the builds find them there).
 * Good must be an ancestor of bad, and differ from it.
 */
import type { RangeCommit } from '../../core/history/bisect-report.js';
import path from 'node:path';
import { cacheLayout } from '../../postgres/builds/cache.js';
import { SourceMirror, type GitDeps, type RepoSpec } from '../../postgres/builds/source.js';
import { short } from '../../core/util/commit-id.js';
import { UserError, errorMessage } from '../../core/util/errors.js';
import { tail } from '../../machine/os/process.js';

export interface CommitRange {
  /** Good first, bad last. */
  commits: RangeCommit[];
  /** 'first-parent' normally; 'ancestry-path' when good is not on bad's first-parent line (a merged branch). */
  walk: 'first-parent' | 'ancestry-path';
}

export interface RangeRequest {
  repo: RepoSpec;
  good: string;
  bad: string;
  cacheDir: string;
  /** What the errors call good and bad (default `--good`, `--bad`; the Action names its inputs or the issue). */
  names?: RangeNames;
}

export interface RangeNames {
  good: string;
  bad: string;
  /** What needs the older commit in the history of the newer one (default: bisection's words). */
  needs?: string;
}

const CLI_NAMES: RangeNames = { good: '--good', bad: '--bad' };

export async function commitRange(req: RangeRequest, deps: GitDeps): Promise<CommitRange> {
  const layout = cacheLayout(path.resolve(req.cacheDir));
  const mirror = new SourceMirror(req.repo, layout.git, layout.locks, deps);
  const good = await mirror.resolve(req.good);
  const bad = await mirror.resolve(req.bad);
  checkDistinct(req, good, bad);
  let base: string;
  try {
    // Deepens the shallow mirror until the two meet: the commits between them are then in the mirror.
    base = await mirror.mergeBase(good, bad);
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    const n = req.names ?? CLI_NAMES;
    throw new UserError(
      `${n.good} ${req.good} (${short(good)}) is not an ancestor of ${n.bad} ${req.bad} (${short(bad)}): ` +
        `they share no history in ${req.repo.input} (${errorMessage(e)})`,
    );
  }
  checkAncestor(req, good, bad, base);
  const git = async (args: string[]) => {
    const res = await deps.runner.run('git', ['--git-dir', mirror.dir, ...args], {
      env: { ...deps.env, LC_ALL: 'C' },
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    if (res.exitCode !== 0) throw new Error(`git ${args.join(' ')} failed: ${tail(res.stderr, 5)}`);
    return res.stdout;
  };
  const format = ['--format=%H%x09%P%x09%s', '--reverse', '--ancestry-path'];
  const firstParent = parseLog(await git(['log', '--first-parent', ...format, `${good}..${bad}`]));
  if (isChain(good, firstParent)) {
    return {
      commits: [{ sha: good, subject: await subjectOf(git, good) }, ...firstParent.map(commitOf)],
      walk: 'first-parent',
    };
  }
  const ancestry = parseLog(await git(['log', '--topo-order', ...format, `${good}..${bad}`]));
  return {
    commits: [{ sha: good, subject: await subjectOf(git, good) }, ...ancestry.map(commitOf)],
    walk: 'ancestry-path',
  };
}

const commitOf = ({ sha, subject }: LogRow): RangeCommit => ({ sha, subject });

async function subjectOf(git: (args: string[]) => Promise<string>, sha: string): Promise<string> {
  return (await git(['log', '-1', '--format=%s', sha])).trim();
}

export function checkDistinct(
  req: { good: string; bad: string; names?: RangeNames },
  good: string,
  bad: string,
): void {
  const n = req.names ?? CLI_NAMES;
  if (good === bad) {
    throw new UserError(
      `${n.good} ${req.good} and ${n.bad} ${req.bad} are the same commit (${short(good)}): give ${n.needs === undefined ? 'a good commit older than the bad one' : `a ${n.good} older than ${n.bad}`}`,
    );
  }
}

/** Good must be the merge-base of the two, i.e. an ancestor of bad. */
export function checkAncestor(
  req: { good: string; bad: string; names?: RangeNames },
  good: string,
  bad: string,
  mergeBase: string,
): void {
  if (mergeBase === good) return;
  const n = req.names ?? CLI_NAMES;
  const hint =
    mergeBase === bad
      ? ` (it is the other way round: ${n.bad} is an ancestor of ${n.good}; swap them?)`
      : ` (they diverge at ${short(mergeBase)})`;
  throw new UserError(
    `${n.good} ${req.good} (${short(good)}) is not an ancestor of ${n.bad} ${req.bad} (${short(bad)})${hint}: ` +
      (n.needs ?? 'bisection needs a good commit in the history of the bad one'),
  );
}

export interface LogRow extends RangeCommit {
  parents: string[];
}

/** `git log --format=%H%x09%P%x09%s` lines. */
export function parseLog(stdout: string): LogRow[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const [sha = '', parents = '', ...subject] = line.split('\t');
      return { sha, parents: parents.split(' ').filter(Boolean), subject: subject.join('\t') };
    });
}

/** Whether rows (oldest first) are a first-parent chain starting right after `good`. */
export function isChain(good: string, rows: readonly LogRow[]): boolean {
  return rows.length > 0 && rows.every((r, i) => r.parents[0] === (i === 0 ? good : rows[i - 1]!.sha));
}
