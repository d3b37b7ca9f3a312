/**
 * Whether two commits of an attribution run the same code, from their source alone (core/attribution/
 * same-source.ts: docs, C comments and layout): read from the build cache's mirror of the repository, where
 * the range's commits already are (commit-range.ts fetched them). Nothing is built.
 */
import path from 'node:path';
import { sameCodeBySource, type ChangedPath } from '../../core/attribution/same-source.js';
import { cacheLayout } from '../../postgres/builds/cache.js';
import { SourceMirror, type GitDeps, type RepoSpec } from '../../postgres/builds/source.js';
import { tail } from '../../machine/os/process.js';

/** More files than this in one diff are not read (a range that big changes code anyway). */
const MAX_FILES = 2000;

/** `(a, b) => whether the changes from a to b cannot move the instructions executed`, on the mirror. */
export function sourceComparer(
  req: { repo: RepoSpec; cacheDir: string },
  deps: GitDeps,
): (a: string, b: string) => Promise<{ same: boolean; file?: string }> {
  const layout = cacheLayout(path.resolve(req.cacheDir));
  const mirror = new SourceMirror(req.repo, layout.git, layout.locks, deps);
  const git = async (args: string[]): Promise<string> => {
    const res = await deps.runner.run('git', ['--git-dir', mirror.dir, ...args], {
      env: { ...deps.env, LC_ALL: 'C' },
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    if (res.exitCode !== 0) throw new Error(`git ${args.join(' ')} failed: ${tail(res.stderr, 5)}`);
    return res.stdout;
  };
  return async (a, b) => {
    const fields = (await git(['diff', '--no-renames', '--name-status', '-z', a, b])).split('\0');
    const changes: ChangedPath[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) changes.push({ status: fields[i]!, path: fields[i + 1]! });
    if (changes.length > MAX_FILES) return { same: false, file: `${changes.length} files` };
    return sameCodeBySource(changes, async (p) => ({
      before: await git(['show', `${a}:${p}`]),
      after: await git(['show', `${b}:${p}`]),
    }));
  };
}
