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
 *
 * No secret on disk: the remote URL (kept in the work tree's .git/config) carries no credentials; the
 * credentials reach git only through the environment of each git process, as an HTTP Authorization header
 * (GIT_CONFIG_COUNT/KEY/VALUE, which git reads as `-c http.<origin>/.extraheader=...` without writing it
 * anywhere), and credential helpers are switched off so that none stores them. The work tree is removed by
 * close(), when checkout fails, and by the cleanup registry (machine/os/cleanup.ts) on a forced exit.
 *
 * Nothing waits on the remote for ever: a transfer slower than 1 kB/s for 30 s is ended by git itself
 * (http.lowSpeedLimit/lowSpeedTime), every git command is killed after GIT_TIMEOUT_MS, and the first signal
 * (deps.signal) kills the running one with its process group, `git remote-http` and its Authorization
 * header included (src/machine/os/process.ts).
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { onCleanup } from '../../machine/os/cleanup.js';
import { makeDirectory } from '../../machine/os/writable-dir.js';
import { UserError } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import type { ProcessResult, ProcessRunner } from '../../machine/os/process.js';
import { maskUrl } from '../mask-url.js';

/** HTTP basic credentials for the remote (GitHub: username x-access-token, the token as password). */
export interface RemoteCredentials {
  username: string;
  password: string;
}

/** The value git sends as the Authorization header for `credentials` ("basic BASE64(user:password)"). */
export function basicAuthorization(credentials: RemoteCredentials): string {
  return `basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
}

/** What must never be printed of `credentials`: the password and the header value that contains it. */
export function credentialSecrets(credentials: RemoteCredentials): string[] {
  const encoded = basicAuthorization(credentials).slice('basic '.length);
  return [credentials.password, encodeURIComponent(credentials.password), encoded];
}

export interface DataBranchOptions {
  /**
   * The remote: a URL without credentials (https://github.com/o/r.git; refused with them: they would be
   * written to .git/config) or a local path.
   */
  remote: string;
  /** Credentials for an http(s) remote, passed to git per command through its environment only. */
  credentials?: RemoteCredentials;
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
  /** Aborting (the first SIGINT/SIGTERM) kills the running git command; no other starts. */
  signal?: AbortSignal;
}

/**
 * The longest a git command may run: a fetch or push of the data branch moves a few megabytes; past this
 * the remote is not answering, whatever lowSpeedTime saw.
 */
export const GIT_TIMEOUT_MS = 120_000;

/**
 * A transfer below this many bytes per second for LOW_SPEED_TIME_S is ended by git (http.lowSpeedLimit,
 * http.lowSpeedTime): a remote that accepts and never answers stops a fetch within half a minute.
 */
const LOW_SPEED_LIMIT = 1000;
const LOW_SPEED_TIME_S = 30;

export interface Published {
  /** The commit that landed on the branch. */
  commit: string;
  /** Pushes tried (1 when nobody pushed in between). */
  attempts: number;
}

const BRANCH = /^(?!-)(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9._/-]+(?<![./])$/;

type ResolvedOptions = Required<Omit<DataBranchOptions, 'sleep' | 'credentials'>> & {
  sleep: (ms: number) => Promise<void>;
  credentials?: RemoteCredentials;
};

export class DataBranch {
  private constructor(
    private readonly opts: ResolvedOptions,
    private readonly deps: DataBranchDeps,
    /** Removes the work tree and unregisters it from the cleanup registry (idempotent). */
    private readonly removeWorkDir: () => Promise<void>,
    /** Whether the branch existed on the remote at the last fetch. */
    private exists = false,
  ) {}

  /**
   * Fetches the branch (or starts it, when the remote has none) into `workDir`. When this fails, `workDir`
   * is removed before the error is thrown.
   */
  static async checkout(options: DataBranchOptions, deps: DataBranchDeps): Promise<DataBranch> {
    const removeWorkDir = removerOf(options.workDir);
    try {
      if (!BRANCH.test(options.branch)) {
        throw new UserError(
          `store-branch '${options.branch}' is not a valid branch name; expected e.g. pgperf-data (letters, digits, ".", "_", "-", "/")`,
        );
      }
      checkRemote(options.remote);
      const opts: ResolvedOptions = {
        storePath: 'store',
        author: { name: 'pgperf', email: 'pgperf@users.noreply.github.com' },
        maxAttempts: 5,
        backoffMs: 1000,
        sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
        ...options,
      };
      await makeDirectory(opts.workDir);
      const branch = new DataBranch(opts, deps, removeWorkDir);
      await branch.git(['init', '-q']);
      await branch.git(['remote', 'add', 'origin', opts.remote]);
      await branch.fetch();
      if (branch.exists) await branch.git(['checkout', '-q', '-B', opts.branch, branch.remoteRef]);
      else await branch.git(['checkout', '-q', '--orphan', opts.branch]);
      return branch;
    } catch (e) {
      await removeWorkDir();
      throw e;
    }
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
    await this.removeWorkDir();
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
    const { signal } = this.deps;
    const what = `git ${args[0]}`;
    if (signal?.aborted) throw this.interrupted(what);
    const result = await this.deps.runner.run('git', ['-C', this.opts.workDir, ...args], {
      env: gitEnvironment(this.opts.remote, this.opts.credentials),
      timeoutMs: GIT_TIMEOUT_MS,
      ...(signal ? { signal } : {}),
    });
    if (signal?.aborted) throw this.interrupted(what);
    if (result.timedOut) {
      throw new UserError(
        `store-branch ${this.opts.branch}: ${what} on ${maskUrl(this.opts.remote)} did not finish in ${GIT_TIMEOUT_MS / 1000} s (the remote does not answer); stopped`,
      );
    }
    if (!allowFailure && result.exitCode !== 0) throw this.failure(what, result);
    return result;
  }

  private interrupted(what: string): UserError {
    return new UserError(
      `store-branch ${this.opts.branch}: ${what} on ${maskUrl(this.opts.remote)} stopped: interrupted by a signal`,
    );
  }

  private failure(what: string, result: ProcessResult): UserError {
    const output = (result.spawnError ?? `${result.stderr}${result.stdout}`)
      .trim()
      .split('\n')
      .slice(-5)
      .join(' / ');
    const refused =
      /could not read Username|Authentication failed|\b(401|403)\b|Permission to .* denied/i.test(output);
    const hint = refused
      ? this.opts.credentials
        ? '; the remote refused the credentials: the token needs contents: write on this repository'
        : '; the remote wants credentials and none were given'
      : '';
    return new UserError(
      `store-branch ${this.opts.branch}: ${what} on ${maskUrl(this.opts.remote)} failed: ${scrub(output, this.opts)}${hint}`,
    );
  }
}

/**
 * The environment of every git command: no prompt, no system config, no credential helper (none may ask
 * for, or store, credentials), and the credentials as an Authorization header for the remote's origin,
 * given as command-line configuration through the environment (git >= 2.31) so that no file holds it.
 */
export function gitEnvironment(remote: string, credentials?: RemoteCredentials): NodeJS.ProcessEnv {
  const config: Array<[string, string]> = [
    ['credential.helper', ''],
    ['http.lowSpeedLimit', String(LOW_SPEED_LIMIT)],
    ['http.lowSpeedTime', String(LOW_SPEED_TIME_S)],
  ];
  if (credentials) {
    const origin = originOf(remote);
    if (origin)
      config.push([`http.${origin}/.extraheader`, `Authorization: ${basicAuthorization(credentials)}`]);
  }
  const env: NodeJS.ProcessEnv = {
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_COUNT: String(config.length),
  };
  for (const [i, [key, value]] of config.entries()) {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  }
  return env;
}

/** "https://github.com" of an http(s) remote URL; undefined for a path or another scheme. */
function originOf(remote: string): string | undefined {
  try {
    const url = new URL(remote);
    return /^https?:$/.test(url.protocol) ? `${url.protocol}//${url.host}` : undefined;
  } catch {
    return undefined;
  }
}

/** Refuses a remote URL with a password in it: `git remote add` would write it to .git/config. */
function checkRemote(remote: string): void {
  let password = '';
  try {
    password = new URL(remote).password;
  } catch {
    return; // a local path
  }
  if (password) {
    throw new UserError(
      `store-branch remote ${maskUrl(remote)} carries credentials: they would be written to .git/config; give the URL without them and the credentials separately`,
    );
  }
}

/**
 * Removes `dir` however it ends: by close(), a failed checkout, or the cleanup registry. Unregistered only
 * once it is gone: a forced exit while it is being removed runs the removal too and waits for it.
 */
function removerOf(dir: string): () => Promise<void> {
  const remove = () => rm(dir, { recursive: true, force: true });
  const unregister = onCleanup(remove);
  return async () => {
    await remove();
    unregister();
  };
}

/** git's words for "someone else pushed first". */
function isRejection(result: ProcessResult): boolean {
  return /\[rejected\]|non-fast-forward|fetch first|failed to update ref|cannot lock ref|stale info/i.test(
    result.stderr,
  );
}

/** git output as it may appear in a message: the remote masked, the credentials (in any form) replaced. */
function scrub(text: string, opts: Pick<ResolvedOptions, 'remote' | 'credentials'>): string {
  let out = text.split(opts.remote).join(maskUrl(opts.remote));
  for (const secret of opts.credentials ? credentialSecrets(opts.credentials) : []) {
    if (secret) out = out.split(secret).join('***');
  }
  return out;
}
