/**
 * GitHubApi over octokit (from @actions/github), for one repository, with GitHub's recommended
 * resilience: @octokit/plugin-retry retries 5xx and 429 answers with backoff, and
 * @octokit/plugin-throttling queues writes and waits out primary and secondary rate limits (when the
 * wait is short). Whatever still fails becomes a GitHubApiError whose `kind` says a rate limit from a
 * missing permission.
 */
import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import {
  GitHubApiError,
  kindOfStatus,
  type GitHubApi,
  type IssueComment,
  type IssueSummary,
  type RepoPermission,
} from './api.js';

/** The login GITHUB_TOKEN's comments carry; GET /user is not allowed for that token. */
export const ACTIONS_BOT_LOGIN = 'github-actions[bot]';

export interface OctokitApiOptions {
  token: string;
  /** GITHUB_API_URL (https://api.github.com, a GHES URL, or a test server). */
  baseUrl: string;
  owner: string;
  repo: string;
  /** Retry tuning (tests make the waits tiny). */
  retry?: RetryTuning;
  /**
   * Milliseconds one HTTP request may take, answer included (default REQUEST_TIMEOUT_MS): an API that
   * accepts and never answers must not hold a job until GitHub's own timeout. A timed-out request is retried
   * like a 5xx answer, then reported.
   */
  requestTimeoutMs?: number;
}

/** One minute per request: GitHub answers in well under a second; a large comment upload in a few. */
export const REQUEST_TIMEOUT_MS = 60_000;

export interface RetryTuning {
  /** Retries of a 5xx/429 answer (default 3). */
  retries?: number;
  /** Milliseconds per backoff unit: retry n waits n^2 units (default 1000). */
  backoffUnitMs?: number;
  /** Milliseconds per second of a rate limit's retry-after (default 1000). */
  rateLimitUnitMs?: number;
  /** Longest rate-limit wait, in seconds, that is waited out rather than reported (default 60). */
  maxRateLimitWaitS?: number;
  /** Retries after a rate limit (default 2). */
  rateLimitRetries?: number;
}

export function octokitApi(options: OctokitApiOptions): GitHubApi {
  const client = repoClient(options);
  return {
    ...viewerApi(client),
    ...commentApi(client),
    ...commitApi(client),
    ...pullRequestApi(client),
    ...issueApi(client),
  };
}

/** One repository's octokit, and `call`: runs one API call and turns its failure into a GitHubApiError. */
interface RepoClient {
  octokit: ReturnType<typeof getOctokit>;
  owner: string;
  repo: string;
  call<T>(what: string, fn: () => Promise<T>): Promise<T>;
}

/** The octokit with retries, throttling and a deadline per request (the file's opening comment says why). */
function repoClient(options: OctokitApiOptions): RepoClient {
  const tuning = options.retry ?? {};
  const maxWaitS = tuning.maxRateLimitWaitS ?? 60;
  const rateLimitRetries = tuning.rateLimitRetries ?? 2;
  /** Rate limits seen, so that the error after the last retry is reported as one. */
  let rateLimited: { retryAfterS: number; secondary: boolean } | undefined;
  const onLimit =
    (secondary: boolean) =>
    (retryAfterS: number, _options: unknown, _octokit: unknown, retryCount: number): boolean => {
      rateLimited = { retryAfterS, secondary };
      return retryCount < rateLimitRetries && retryAfterS <= maxWaitS;
    };
  const timeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  // Every request gets its own deadline beside whatever signal octokit passes.
  const timedFetch: typeof fetch = (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    return fetch(input, { ...init, signal });
  };
  const octokit = getOctokit(
    options.token,
    {
      baseUrl: options.baseUrl,
      request: { fetch: timedFetch },
      retry: {
        retries: tuning.retries ?? 3,
        ...(tuning.backoffUnitMs !== undefined ? { retryAfterBaseValue: tuning.backoffUnitMs } : {}),
      },
      throttle: {
        onRateLimit: onLimit(false),
        onSecondaryRateLimit: onLimit(true),
        ...(tuning.rateLimitUnitMs !== undefined ? { retryAfterBaseValue: tuning.rateLimitUnitMs } : {}),
      },
    },
    retry,
    throttling,
  );
  return {
    octokit,
    owner: options.owner,
    repo: options.repo,
    async call(what, fn) {
      rateLimited = undefined;
      try {
        return await fn();
      } catch (e) {
        throw toApiError(what, e, rateLimited);
      }
    },
  };
}

/** Who the token acts as. */
function viewerApi({ octokit }: RepoClient): Pick<GitHubApi, 'viewerLogin'> {
  // The token's login does not change: asked once (GITHUB_TOKEN cannot read /user and falls back every time).
  let login: Promise<string> | undefined;
  const askLogin = async (): Promise<string> => {
    try {
      const { data } = await octokit.rest.users.getAuthenticated();
      return data.login;
    } catch (e) {
      // Installation tokens (GITHUB_TOKEN) may not read /user; their comments are the Actions bot's.
      const error = toApiError('GET /user', e);
      if (error.kind === 'permission' || error.kind === 'not-found') return ACTIONS_BOT_LOGIN;
      throw error;
    }
  };
  return {
    viewerLogin() {
      login ??= askLogin().catch((e: unknown) => {
        login = undefined; // a failure is not remembered: the next call asks again
        throw e;
      });
      return login;
    },
  };
}

/** Comments of issues and pull requests, and reactions to them. */
function commentApi({
  octokit,
  owner,
  repo,
  call,
}: RepoClient): Pick<GitHubApi, 'listComments' | 'createComment' | 'updateComment' | 'addReaction'> {
  return {
    listComments: (issueNumber) =>
      call(`list comments of #${issueNumber}`, async () => {
        const all = await octokit.paginate(octokit.rest.issues.listComments, {
          owner,
          repo,
          issue_number: issueNumber,
          per_page: 100,
        });
        return all.map(toComment);
      }),
    createComment: (issueNumber, body) =>
      call(`comment on #${issueNumber}`, async () =>
        toComment(
          (await octokit.rest.issues.createComment({ owner, repo, issue_number: issueNumber, body })).data,
        ),
      ),
    updateComment: (commentId, body) =>
      call(`update comment ${commentId}`, async () =>
        toComment(
          (await octokit.rest.issues.updateComment({ owner, repo, comment_id: commentId, body })).data,
        ),
      ),
    addReaction: (commentId, content) =>
      call(`react to comment ${commentId}`, async () => {
        await octokit.rest.reactions.createForIssueComment({ owner, repo, comment_id: commentId, content });
      }),
  };
}

/** Commits: their statuses and the merge-base of two. */
function commitApi({
  octokit,
  owner,
  repo,
  call,
}: RepoClient): Pick<GitHubApi, 'setCommitStatus' | 'mergeBase'> {
  return {
    setCommitStatus: (sha, status) =>
      call(`set the commit status of ${sha.slice(0, 12)}`, async () => {
        await octokit.rest.repos.createCommitStatus({
          owner,
          repo,
          sha,
          state: status.state,
          context: status.context,
          description: status.description.slice(0, 140),
          ...(status.targetUrl ? { target_url: status.targetUrl } : {}),
        });
      }),
    mergeBase: (base, head) =>
      call(`merge-base of ${base} and ${head}`, async () => {
        const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
          owner,
          repo,
          basehead: `${base}...${head}`,
          per_page: 1,
        });
        return data.merge_base_commit.sha;
      }),
  };
}

/** Pull requests, and the permission of who comments on them. */
function pullRequestApi({
  octokit,
  owner,
  repo,
  call,
}: RepoClient): Pick<GitHubApi, 'pullRequestHead' | 'pullRequest' | 'permission'> {
  return {
    pullRequestHead: (prNumber) =>
      call(`read PR #${prNumber}`, async () => {
        const { data } = await octokit.rest.pulls.get({ owner, repo, pull_number: prNumber });
        return data.head.sha;
      }),
    pullRequest: (prNumber) =>
      call(`read PR #${prNumber}`, async () => {
        const { data } = await octokit.rest.pulls.get({ owner, repo, pull_number: prNumber });
        return {
          number: data.number,
          state: data.state === 'open' ? ('open' as const) : ('closed' as const),
          headSha: data.head.sha,
          headRef: data.head.ref,
          baseSha: data.base.sha,
          baseRef: data.base.ref,
        };
      }),
    permission: (login) =>
      call(`read the permission of @${login}`, async () => {
        try {
          const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
            owner,
            repo,
            username: login,
          });
          return permissionOf(data as { permission?: string; role_name?: string });
        } catch (e) {
          // Not a collaborator (or no such user): no permission, not a failure.
          if ((e as { status?: number }).status === 404) return 'none';
          throw e;
        }
      }),
  };
}

/** Issues (the regression issues), never pull requests. */
function issueApi({
  octokit,
  owner,
  repo,
  call,
}: RepoClient): Pick<GitHubApi, 'listIssues' | 'createIssue' | 'updateIssue'> {
  return {
    listIssues: (label) =>
      call(`list issues labelled ${label}`, async () => {
        const all = await octokit.paginate(octokit.rest.issues.listForRepo, {
          owner,
          repo,
          labels: label,
          state: 'all',
          per_page: 100,
        });
        return all.filter((i) => !i.pull_request).map(toIssue);
      }),
    createIssue: (issue) =>
      call(`open an issue`, async () =>
        toIssue((await octokit.rest.issues.create({ owner, repo, ...issue })).data),
      ),
    updateIssue: (issueNumber, change) =>
      call(`update issue #${issueNumber}`, async () =>
        toIssue(
          (await octokit.rest.issues.update({ owner, repo, issue_number: issueNumber, ...change })).data,
        ),
      ),
  };
}

function toComment(c: {
  id: number;
  body?: string | null;
  user?: { login: string } | null;
  created_at?: string;
  updated_at?: string;
}): IssueComment {
  return {
    id: c.id,
    body: c.body ?? '',
    userLogin: c.user?.login ?? '',
    ...(c.created_at ? { createdAt: c.created_at } : {}),
    ...(c.updated_at ? { updatedAt: c.updated_at } : {}),
  };
}

function toIssue(i: {
  number: number;
  title: string;
  body?: string | null;
  state: string;
  user?: { login: string } | null;
  labels?: Array<string | { name?: string }>;
  created_at?: string;
}): IssueSummary {
  return {
    number: i.number,
    title: i.title,
    body: i.body ?? '',
    state: i.state === 'closed' ? 'closed' : 'open',
    userLogin: i.user?.login ?? '',
    labels: (i.labels ?? []).flatMap((l) => (typeof l === 'string' ? [l] : l.name ? [l.name] : [])),
    ...(i.created_at ? { createdAt: i.created_at } : {}),
  };
}

const PERMISSIONS: readonly RepoPermission[] = ['admin', 'maintain', 'write', 'triage', 'read', 'none'];

/** role_name (admin, maintain, write, triage, read, or a custom role), else the legacy `permission`. */
function permissionOf(data: { permission?: string; role_name?: string }): RepoPermission {
  const role = data.role_name as RepoPermission | undefined;
  if (role && PERMISSIONS.includes(role)) return role;
  // A custom role: its base permission is what `permission` says (admin, write, read or none).
  const legacy = data.permission as RepoPermission | undefined;
  return legacy && PERMISSIONS.includes(legacy) ? legacy : 'none';
}

/** A failed call as a GitHubApiError: rate limits (headers, message, or seen by the throttler) say so. */
export function toApiError(
  what: string,
  e: unknown,
  rateLimited?: { retryAfterS: number; secondary: boolean },
): GitHubApiError {
  const err = e as {
    status?: number;
    message?: string;
    response?: { headers?: Record<string, string | undefined> };
  };
  const status = typeof err.status === 'number' ? err.status : undefined;
  const headers = err.response?.headers ?? {};
  const message = err.message ?? String(e);
  const limited =
    status === 429 ||
    ((status === 403 || status === 429) &&
      (headers['x-ratelimit-remaining'] === '0' || /rate limit/i.test(message))) ||
    (rateLimited !== undefined && (status === 403 || status === 429));
  if (limited) {
    const reset = Number(headers['x-ratelimit-reset']);
    const when =
      Number.isFinite(reset) && reset > 0 ? `; it resets at ${new Date(reset * 1000).toISOString()}` : '';
    const which =
      rateLimited?.secondary || /secondary/i.test(message) ? 'secondary rate limit' : 'rate limit';
    return new GitHubApiError(
      `${what}: GitHub ${which} exceeded (HTTP ${status})${when}`,
      status,
      'rate-limit',
    );
  }
  return new GitHubApiError(`${what}: ${message}`, status, kindOfStatus(status));
}
