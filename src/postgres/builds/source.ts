/**
 * PostgreSQL source: a persistent bare mirror per repository under the cache directory, fetched shallow
 * (only the commits asked for), refs resolved to exact shas, merge-bases computed on request (deepening
 * the history only then), checkouts as worktrees of the mirror, and patches applied in order.
 */
import { short } from '../../core/util/commit-id.js';
import { readFile, rm, stat } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import path from 'node:path';
import { UserError } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import {
  describeExit,
  tail,
  type ProcessResult,
  type ProcessRunner,
  type RunOptions,
} from '../../machine/os/process.js';
import { acquireLock } from '../../machine/os/file-lock.js';
import { sha256 } from './cache.js';

/** Upstream PostgreSQL, the default --repo. */
export const DEFAULT_REPO = 'https://github.com/postgres/postgres.git';

const FULL_SHA = /^[0-9a-f]{40}$/i;
/** ls-remote and fetches may wait on a slow network, but not forever. */
const GIT_NETWORK_TIMEOUT_MS = 15 * 60_000;
/** Depths tried, one after the other, when a merge-base is not within the fetched history. */
const DEEPEN_STEPS = [64, 512, 4096];

export interface RepoSpec {
  /** As the user gave it. */
  input: string;
  /** What git fetches from: the URL, or file:// plus the absolute path (so shallow fetches work). */
  url: string;
  local: boolean;
  /** A local repository's directory: a path as given (resolved), or what git reads a file:// URL as. */
  path?: string;
}

/**
 * A URL (scheme:// or scp-like user@host:path) is used as is; anything else is a local path, taken as it is.
 * git reads %XX in a file:// URL as an escape (file:///srv/a%41 is /srv/aA), so a path's own "%" goes into
 * the URL as %25: /srv/pg%zz and /srv/100%41 stay themselves.
 */
export function parseRepo(repo: string, cwd: string): RepoSpec {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(repo) || /^[^/\s]+@[^/\s]+:/.test(repo)) {
    const local = repo.startsWith('file://');
    return { input: repo, url: repo, local, ...(local ? { path: gitUrlDecode(repo.slice(7)) } : {}) };
  }
  const dir = path.resolve(cwd, repo);
  return { input: repo, url: `file://${dir.replaceAll('%', '%25')}`, local: true, path: dir };
}

/**
 * A file:// URL's path as git reads it: each %XX (two hex digits) is that byte, anything else (a "%" not
 * followed by two hex digits) is itself. Never throws, unlike decodeURIComponent.
 */
function gitUrlDecode(text: string): string {
  const bytes: number[] = [];
  const raw = Buffer.from(text, 'utf8');
  for (let i = 0; i < raw.length; i++) {
    const hex = raw.subarray(i + 1, i + 3).toString('latin1');
    if (raw[i] === 0x25 && /^[0-9a-f]{2}$/i.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(raw[i]!);
  }
  return Buffer.from(bytes).toString('utf8');
}

export interface GitDeps {
  runner: ProcessRunner;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Network remotes: how often ls-remote and fetch are tried, and the first pause (doubled each time). */
  networkAttempts?: number;
  networkBackoffMs?: number;
}

/** Failures worth another try on a network remote: the connection, not the request. */
const TRANSIENT_GIT =
  /could not resolve host|connection (timed out|refused|reset)|operation timed out|unable to access|early EOF|the remote end hung up|RPC failed|HTTP (429|5\d\d)|returned error: (429|5\d\d)|gnutls|ssl/i;

/** One repository's bare mirror in the cache. */
export class SourceMirror {
  readonly dir: string;
  private readonly lockFile: string;

  constructor(
    readonly repo: RepoSpec,
    gitRoot: string,
    locksDir: string,
    private readonly deps: GitDeps,
  ) {
    const name = sha256(repo.url).slice(0, 16);
    this.dir = path.join(gitRoot, `${name}.git`);
    this.lockFile = path.join(locksDir, `git-${name}.lock`);
  }

  /**
   * The exact commit sha of a ref: a full sha as given; a tag (peeled) or branch by asking the
   * repository (`git ls-remote`, no download); an abbreviated sha only when the mirror already has it.
   */
  async resolve(ref: string): Promise<string> {
    if (FULL_SHA.test(ref)) return ref.toLowerCase();
    if (!ref || ref.startsWith('-')) throw new UserError(`--ref '${ref}': not a branch, tag or sha`);
    await this.checkLocalRepo();
    const res = await this.networkGit(['ls-remote', this.repo.url, ref, `${ref}^{}`]);
    if (res.exitCode !== 0) throw this.unreachable(res);
    const sha = pickRef(parseLsRemote(res.stdout), ref);
    if (sha) return sha;
    const abbreviated = /^[0-9a-f]{4,39}$/i.test(ref) ? await this.localCommit(ref) : undefined;
    if (abbreviated) return abbreviated;
    throw new UserError(
      `unknown ref '${ref}' in ${this.repo.input}: no branch or tag of that name there` +
        (/^[0-9a-f]{4,39}$/i.test(ref)
          ? ', and abbreviated shas only work once fetched: give all 40 characters'
          : '') +
        '. Give a branch, a tag or a full 40-character commit sha.',
    );
  }

  /** Fetches (depth 1) the commits the mirror does not have yet. */
  async ensureCommits(shas: readonly string[]): Promise<void> {
    await this.withLock(async () => {
      const missing: string[] = [];
      for (const sha of new Set(shas)) if (!(await this.localCommit(sha))) missing.push(sha);
      if (missing.length === 0) return;
      await this.checkLocalRepo();
      this.deps.logger.info(`fetching ${missing.map(short).join(', ')} from ${this.repo.input} (shallow)`);
      await this.fetch(['--depth=1', this.repo.url, ...missing], missing);
    });
  }

  /**
   * The merge-base of two commits. The mirror is shallow, so the history is deepened step by step (and
   * in the end unshallowed) until the two meet; only merge-base requests ever download history.
   */
  async mergeBase(a: string, b: string): Promise<string> {
    await this.ensureCommits([a, b]);
    return this.withLock(async () => {
      const steps: Array<string | undefined> = [
        undefined,
        ...DEEPEN_STEPS.map((d) => `--deepen=${d}`),
        '--unshallow',
      ];
      for (const step of steps) {
        if (step) {
          if (step === '--unshallow' && !(await this.isShallow())) break;
          this.deps.logger.info(`merge-base of ${short(a)} and ${short(b)}: fetching more history (${step})`);
          await this.fetch([step, this.repo.url, a, b], [a, b]);
        }
        const res = await this.git(['--git-dir', this.dir, 'merge-base', a, b]);
        if (res.exitCode === 0 && FULL_SHA.test(res.stdout.trim())) return res.stdout.trim();
      }
      throw new UserError(
        `--merge-base: ${short(a)} and ${short(b)} have no common ancestor in ${this.repo.input}; ` +
          'drop --merge-base to build the two refs as given',
      );
    });
  }

  /**
   * Up to `count` commits of the first-parent line ending at `sha`, newest first (`sha` itself first), with
   * their parents, committer dates and subjects. The mirror is shallow, so the history is deepened (by
   * `count`, then unshallowed) while the line stops at a shallow boundary rather than at the root; fewer
   * than `count` only when the history is that short.
   */
  async firstParents(sha: string, count: number): Promise<FirstParentCommit[]> {
    await this.ensureCommits([sha]);
    return this.withLock(async () => {
      for (const step of [undefined, `--deepen=${count}`, '--unshallow']) {
        if (step) {
          this.deps.logger.info(`history of ${short(sha)}: fetching more (${step})`);
          await this.fetch([step, this.repo.url, sha], [sha]);
        }
        const res = await this.git([
          '--git-dir',
          this.dir,
          'log',
          '--first-parent',
          `--max-count=${count}`,
          '--format=%H%x09%P%x09%cI%x09%s',
          sha,
        ]);
        if (res.exitCode !== 0) throw new Error(`git log ${short(sha)} failed: ${tail(res.stderr, 5)}`);
        const rows = parseFirstParents(res.stdout);
        const last = rows.at(-1);
        if (rows.length >= count || !last || !(await this.shallowAt(last.sha))) return rows;
      }
      throw new Error(`the history of ${short(sha)} in ${this.repo.input} stays shallow after --unshallow`);
    });
  }

  /** Whether the mirror's history is cut at this commit (a shallow boundary: its parents are not here). */
  private async shallowAt(sha: string): Promise<boolean> {
    const file = path.join(this.dir, 'shallow');
    if (!(await exists(file))) return false;
    return (await readFile(file, 'utf8')).split('\n').includes(sha);
  }

  /** Whether the commit has this file (a path from the top of the tree). */
  async hasFile(sha: string, file: string): Promise<boolean> {
    return (await this.git(['--git-dir', this.dir, 'cat-file', '-e', `${sha}:${file}`])).exitCode === 0;
  }

  /** Checks the commit out into `dir` as a worktree of the mirror (so `git am` can apply series). */
  async checkout(sha: string, dir: string): Promise<void> {
    await rm(dir, { recursive: true, force: true });
    await this.withLock(async () => {
      const res = await this.git(['--git-dir', this.dir, 'worktree', 'add', '--detach', '--force', dir, sha]);
      if (res.exitCode !== 0) {
        throw new Error(
          `git worktree add ${dir} ${sha} failed (${describeExit(res)}): ${tail(res.stderr, 10)}`,
        );
      }
    });
  }

  /** Removes a checkout and its registration in the mirror. */
  async removeCheckout(dir: string): Promise<void> {
    await rm(dir, { recursive: true, force: true });
    if (!(await exists(path.join(this.dir, 'worktrees')))) return;
    // Cleanup runs after an abort too, so it does not listen to the abort signal.
    await this.withLock(() => this.git(['--git-dir', this.dir, 'worktree', 'prune'], { signal: undefined }), {
      abortable: false,
    });
  }

  private async fetch(args: string[], wanted: readonly string[]): Promise<void> {
    await this.init();
    const res = await this.networkGit(['--git-dir', this.dir, 'fetch', '--quiet', '--no-tags', ...args]);
    if (res.exitCode !== 0) {
      if (/not our ref|couldn't find remote ref|no such remote ref/i.test(res.stderr)) {
        throw new UserError(
          `unknown ref: ${wanted.map(short).join(' or ')} is not a commit of ${this.repo.input} (${tail(res.stderr, 3)})`,
        );
      }
      throw this.unreachable(res);
    }
    // A ref per fetched commit keeps it (and, once deepened, its history) safe from `git gc`.
    for (const sha of wanted) {
      await this.git(['--git-dir', this.dir, 'update-ref', `refs/pgperf/${sha}`, sha]);
    }
  }

  private async init(): Promise<void> {
    if (await exists(path.join(this.dir, 'HEAD'))) return;
    const res = await this.git(['init', '--quiet', '--bare', this.dir]);
    if (res.exitCode !== 0) throw new Error(`git init --bare ${this.dir} failed: ${tail(res.stderr, 5)}`);
  }

  private async isShallow(): Promise<boolean> {
    return exists(path.join(this.dir, 'shallow'));
  }

  /** The full sha of a commit the mirror already has, else undefined. */
  private async localCommit(rev: string): Promise<string | undefined> {
    if (!(await exists(path.join(this.dir, 'HEAD')))) return undefined;
    const res = await this.git([
      '--git-dir',
      this.dir,
      'rev-parse',
      '--verify',
      '--quiet',
      `${rev}^{commit}`,
    ]);
    const sha = res.stdout.trim();
    return res.exitCode === 0 && FULL_SHA.test(sha) ? sha : undefined;
  }

  private async checkLocalRepo(): Promise<void> {
    if (!this.repo.local) return;
    const dir = this.repo.path ?? gitUrlDecode(this.repo.url.slice('file://'.length));
    if (!(await exists(dir))) {
      throw new UserError(
        `--repo ${this.repo.input}: no such directory (${dir}); give a git URL or the path of a local clone`,
      );
    }
  }

  private unreachable(res: ProcessResult): UserError {
    return new UserError(
      `cannot reach repository ${this.repo.input} (--repo): git ${res.command[1]} failed (${describeExit(res)}): ` +
        tail(res.stderr, 5),
    );
  }

  private async withLock<T>(fn: () => Promise<T>, options = { abortable: true }): Promise<T> {
    const { release } = await acquireLock(this.lockFile, {
      logger: this.deps.logger,
      what: `the git mirror of ${this.repo.input}`,
      signal: options.abortable ? this.deps.signal : undefined,
    });
    try {
      return await fn();
    } finally {
      await release();
    }
  }

  /**
   * A git command that talks to the remote: a network remote that fails on the connection (not on the
   * request: an unknown ref fails at once) is tried again after a pause that doubles each time.
   */
  private async networkGit(args: string[]): Promise<ProcessResult> {
    const attempts = this.repo.local ? 1 : (this.deps.networkAttempts ?? 4);
    for (let attempt = 1; ; attempt++) {
      const res = await this.git(args, { timeoutMs: GIT_NETWORK_TIMEOUT_MS });
      if (res.exitCode === 0 || attempt >= attempts || !TRANSIENT_GIT.test(res.stderr)) return res;
      const waitMs = (this.deps.networkBackoffMs ?? 2000) * 2 ** (attempt - 1);
      this.deps.logger.warn(
        `git ${args.includes('fetch') ? 'fetch' : args[0]} from ${this.repo.input} failed (${tail(res.stderr, 1)}); ` +
          `trying again in ${Math.round(waitMs / 1000)} s (attempt ${attempt + 1} of ${attempts})`,
      );
      await delay(waitMs, undefined, { signal: this.deps.signal });
    }
  }

  private git(args: string[], options: RunOptions = {}): Promise<ProcessResult> {
    return runGit(args, this.deps, options);
  }
}

/** A commit of a first-parent line (SourceMirror.firstParents). */
export interface FirstParentCommit {
  sha: string;
  /** Its parents' shas, the first parent first (none for a root commit). */
  parents: string[];
  /** The committer date, ISO 8601 with the committer's offset. */
  committedAt: string;
  subject: string;
}

/** `git log --format=%H%x09%P%x09%cI%x09%s` lines (a subject may hold tabs). */
export function parseFirstParents(stdout: string): FirstParentCommit[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const [sha = '', parents = '', committedAt = '', ...subject] = line.split('\t');
      return { sha, parents: parents.split(' ').filter(Boolean), committedAt, subject: subject.join('\t') };
    });
}

export function runGit(
  args: string[],
  deps: GitDeps,
  options: RunOptions = {},
  extraEnv: Record<string, string> = {},
): Promise<ProcessResult> {
  return deps.runner.run('git', args, {
    // Never prompt for credentials: an unreachable or private repository is an error, not a hang.
    env: { ...deps.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true', LC_ALL: 'C', ...extraEnv },
    signal: deps.signal,
    ...options,
  });
}

/** `git ls-remote` output -> ref name -> sha. */
export function parseLsRemote(stdout: string): Map<string, string> {
  const refs = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const m = /^([0-9a-f]{40})\t(\S+)$/.exec(line.trim());
    if (m) refs.set(m[2]!, m[1]!);
  }
  return refs;
}

/** The commit a ref names, in git's order of precedence (tags, peeled, before branches). */
export function pickRef(refs: ReadonlyMap<string, string>, ref: string): string | undefined {
  const names = ref.startsWith('refs/') || ref === 'HEAD' ? [ref] : [`refs/tags/${ref}`, `refs/heads/${ref}`];
  for (const name of names) {
    const sha = refs.get(`${name}^{}`) ?? refs.get(name);
    if (sha) return sha;
  }
  return undefined;
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
