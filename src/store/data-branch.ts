/**
 * The directory store kept on a git "data branch" of a repository (the Action's `store-branch`), so small
 * projects keep their history without a database: the branch is fetched into a private work tree, the run
 * saved there with the directory store (one file per run, plus its index entry), committed, and pushed.
 * When another job pushed first (a non-fast-forward rejection), the branch is fetched again, our commit
 * rebased onto it and pushed again, up to `maxAttempts` times with exponential backoff. Runs are separate
 * files, so a rebase never conflicts unless both saved the same run; then the run is saved again on top
 * of the fetched branch. Nothing is force-pushed, so no run is ever lost.
 *
 * Only the remote given is contacted; every git command goes through the ProcessRunner.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { UserError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { ProcessResult, ProcessRunner } from '../util/process.js';
import { maskUrl } from './mask-url.js';

export interface DataBranchOptions {
  /** The remote: a URL (credentials masked in every message) or a local path. */
  remote: string;
  /** The branch, e.g. "pgperf-data". */
  branch: string;
  /** An empty (or absent) private directory for the work tree; removed by close(). */
  workDir: string;
  /** The store directory inside the branch (default "store"). */
  storePath?: string;
  /** Commit author (default "pgperf <pgperf@users.noreply.github.com>"). */
  author?: { name: string; email: string };
  /** Pushes tried before giving up (default 5). */
  maxAttempts?: number;
  /** First backoff in ms, doubled per retry, plus up to 50% jitter (default 1000). */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface DataBranchDeps {
  runner: ProcessRunner;
  logger: Logger;
}

export interface Published {
  /** The commit that landed on the branch. */
  commit: string;
  /** Pushes tried (1 when nobody pushed in between). */
  attempts: number;
}

const BRANCH = /^(?!-)(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9._/-]+(?<![./])$/;

export class DataBranch {
  private constructor(
    private readonly opts: Required<Omit<DataBranchOptions, 'sleep'>> & {
      sleep: (ms: number) => Promise<void>;
    },
    private readonly deps: DataBranchDeps,
    /** Whether the branch existed on the remote at the last fetch. */
    private exists: boolean,
  ) {}

  /** Fetches the branch (or starts it, when the remote has none) into `workDir`. */
  static async checkout(options: DataBranchOptions, deps: DataBranchDeps): Promise<DataBranch> {
    if (!BRANCH.test(options.branch)) {
      throw new UserError(
        `store-branch '${options.branch}' is not a valid branch name; expected e.g. pgperf-data (letters, digits, ".", "_", "-", "/")`,
      );
    }
    const opts = {
      storePath: 'store',
      author: { name: 'pgperf', email: 'pgperf@users.noreply.github.com' },
      maxAttempts: 5,
      backoffMs: 1000,
      sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
      ...options,
    };
    await mkdir(opts.workDir, { recursive: true });
    const branch = new DataBranch(opts, deps, false);
    await branch.git(['init', '-q']);
    await branch.git(['remote', 'add', 'origin', opts.remote]);
    await branch.fetch();
    if (branch.exists) await branch.git(['checkout', '-q', '-B', opts.branch, branch.remoteRef]);
    else await branch.git(['checkout', '-q', '--orphan', opts.branch]);
    return branch;
  }

  /** The directory store's directory inside the work tree. */
  get storeDir(): string {
    return path.join(this.opts.workDir, this.opts.storePath);
  }

  /** A directory of the branch other than the store (e.g. the history site), relative to its root. */
  pathOf(relative: string): string {
    return path.join(this.opts.workDir, relative);
  }

  private get remoteRef(): string {
    return `refs/remotes/origin/${this.opts.branch}`;
  }

  /**
   * Saves with `save` (which writes into storeDir and returns the commit message), commits and pushes,
   * retrying a rejected push on top of the newly fetched branch. A UserError after `maxAttempts`.
   * `paths` (relative to the branch's root; default the store) are what `save` writes and is committed.
   */
  async publish(
    save: (storeDir: string) => Promise<string>,
    paths: readonly string[] = [this.opts.storePath],
  ): Promise<Published> {
    const { logger } = this.deps;
    let message = await save(this.storeDir);
    await this.commit(message, paths);
    for (let attempt = 1; ; attempt++) {
      const pushed = await this.git(['push', '-q', 'origin', `HEAD:refs/heads/${this.opts.branch}`], true);
      if (pushed.exitCode === 0)
        return { commit: (await this.git(['rev-parse', 'HEAD'])).stdout.trim(), attempts: attempt };
      if (!isRejection(pushed)) throw this.failure('git push', pushed);
      if (attempt >= this.opts.maxAttempts) {
        throw new UserError(
          `store-branch ${this.opts.branch}: the push to ${maskUrl(this.opts.remote)} was rejected ${attempt} times (others kept pushing first); the run is saved in ${this.storeDir} but not on the branch`,
        );
      }
      const wait = this.opts.backoffMs * 2 ** (attempt - 1) * (1 + Math.random() / 2);
      logger.info(
        `store-branch ${this.opts.branch}: another job pushed first; fetching and retrying in ${Math.round(wait)} ms (attempt ${attempt + 1} of ${this.opts.maxAttempts})`,
      );
      await this.opts.sleep(wait);
      await this.fetch();
      const rebased = await this.git(['rebase', '-q', this.remoteRef], true);
      if (rebased.exitCode !== 0) {
        // Both saved the same file (the same run, or both rendered the site): take theirs, save ours again.
        await this.git(['rebase', '--abort'], true);
        await this.git(['reset', '-q', '--hard', this.remoteRef]);
        message = await save(this.storeDir);
        await this.commit(message, paths);
      }
    }
  }

  /** Removes the work tree. */
  async close(): Promise<void> {
    await rm(this.opts.workDir, { recursive: true, force: true });
  }

  private async fetch(): Promise<void> {
    const listed = await this.git(['ls-remote', '--heads', 'origin', `refs/heads/${this.opts.branch}`]);
    this.exists = listed.stdout.trim() !== '';
    if (this.exists) {
      await this.git(['fetch', '-q', 'origin', `+refs/heads/${this.opts.branch}:${this.remoteRef}`]);
    }
  }

  private async commit(message: string, paths: readonly string[]): Promise<void> {
    await this.git(['add', '-A', '--', ...paths]);
    const { name, email } = this.opts.author;
    await this.git([
      '-c',
      `user.name=${name}`,
      '-c',
      `user.email=${email}`,
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      message,
    ]);
  }

  private async git(args: string[], allowFailure = false): Promise<ProcessResult> {
    const result = await this.deps.runner.run('git', ['-C', this.opts.workDir, ...args], {
      env: { GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' },
      timeoutMs: 120_000,
    });
    if (!allowFailure && result.exitCode !== 0) throw this.failure(`git ${args[0]}`, result);
    return result;
  }

  private failure(what: string, result: ProcessResult): UserError {
    const output = (result.spawnError ?? `${result.stderr}${result.stdout}`)
      .trim()
      .split('\n')
      .slice(-5)
      .join(' / ');
    return new UserError(
      `store-branch ${this.opts.branch}: ${what} on ${maskUrl(this.opts.remote)} failed: ${maskSecretsIn(output, this.opts.remote)}`,
    );
  }
}

/** git's words for "someone else pushed first". */
function isRejection(result: ProcessResult): boolean {
  return /\[rejected\]|non-fast-forward|fetch first|failed to update ref|cannot lock ref|stale info/i.test(
    result.stderr,
  );
}

/** git may echo the remote URL: never with its credentials. */
function maskSecretsIn(text: string, remote: string): string {
  return text.split(remote).join(maskUrl(remote));
}
