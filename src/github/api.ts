/**
 * The GitHub REST calls pgperf makes, behind a small interface so that the action's logic can be tested
 * against a recording server and the rest of the code never sees octokit.
 */
export interface IssueComment {
  id: number;
  body: string;
  userLogin: string;
  /** ISO times GitHub recorded; an edited comment's updatedAt is later than its createdAt. */
  createdAt?: string;
  updatedAt?: string;
}

/** A collaborator's permission on the repository (GitHub's role_name; 'none' for strangers). */
export type RepoPermission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

/** A pull request as the comment commands need it, read at the time of the command. */
export interface PullRequestInfo {
  number: number;
  state: 'open' | 'closed';
  headSha: string;
  headRef: string;
  baseSha: string;
  baseRef: string;
}

/** An issue (never a pull request) as pgperf's regression notifications see it. */
export interface IssueSummary {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  userLogin: string;
  /** Its labels' names, and when it was opened (ISO 8601), where the API said. */
  labels?: string[];
  createdAt?: string;
}

export type CommitState = 'success' | 'failure' | 'error' | 'pending';

export interface GitHubApi {
  /** The login the token acts as (comments by others are never edited). */
  viewerLogin(): Promise<string>;
  /** Every comment of an issue or PR, across all pages. */
  listComments(issueNumber: number): Promise<IssueComment[]>;
  createComment(issueNumber: number, body: string): Promise<IssueComment>;
  updateComment(commentId: number, body: string): Promise<IssueComment>;
  setCommitStatus(
    sha: string,
    status: { state: CommitState; context: string; description: string; targetUrl?: string },
  ): Promise<void>;
  /** The merge-base of two commits (the compare API's merge_base_commit). */
  mergeBase(base: string, head: string): Promise<string>;
  /** The sha of a pull request's head commit (to check that results belong to it). */
  pullRequestHead(prNumber: number): Promise<string>;
  /** A pull request's state, head and base, now. */
  pullRequest(prNumber: number): Promise<PullRequestInfo>;
  /** A user's permission on the repository now (GET /repos/{o}/{r}/collaborators/{user}/permission). */
  permission(login: string): Promise<RepoPermission>;
  /** A reaction (e.g. 'eyes', '+1', '-1', 'confused') on an issue or PR comment. */
  addReaction(commentId: number, content: 'eyes' | '+1' | '-1' | 'confused' | 'rocket'): Promise<void>;
  /** Every issue (open and closed, no pull requests) carrying the label, across all pages. */
  listIssues(label: string): Promise<IssueSummary[]>;
  createIssue(issue: { title: string; body: string; labels: string[] }): Promise<IssueSummary>;
  updateIssue(
    issueNumber: number,
    change: { title?: string; body?: string; state?: 'open' | 'closed' },
  ): Promise<IssueSummary>;
}

/**
 * What kind of failure an API error is, so that a rate limit is not reported as a missing permission:
 * - `rate-limit`: primary or secondary rate limit (403/429 with the rate-limit headers or message);
 * - `permission`: 401/403 otherwise (a fork's read-only token, a missing `permissions:` entry);
 * - `not-found`: 404 (or 410/422 for a sha or PR that does not exist);
 * - `server`: 5xx after the retries;
 * - `network`: no HTTP answer at all;
 * - `other`: anything else.
 */
export type GitHubApiErrorKind = 'rate-limit' | 'permission' | 'not-found' | 'server' | 'network' | 'other';

/** An API failure with its HTTP status and kind, so callers can say what to do about it. */
export class GitHubApiError extends Error {
  readonly kind: GitHubApiErrorKind;
  constructor(
    message: string,
    readonly status: number | undefined,
    kind?: GitHubApiErrorKind,
  ) {
    super(message);
    this.name = 'GitHubApiError';
    this.kind = kind ?? kindOfStatus(status);
  }
}

/** The kind an HTTP status means when nothing else (rate-limit headers) says more. */
export function kindOfStatus(status: number | undefined): GitHubApiErrorKind {
  if (status === undefined || status === 0) return 'network';
  if (status === 429) return 'rate-limit';
  if (status === 401 || status === 403) return 'permission';
  if (status === 404 || status === 410 || status === 422) return 'not-found';
  if (status >= 500) return 'server';
  return 'other';
}

/** What to tell the user about a failed call that needed `permission`, by the failure's kind. */
export function apiFailureHint(e: GitHubApiError, permission: string): string {
  switch (e.kind) {
    case 'rate-limit':
      return "GitHub's API rate limit was hit (not a permission problem); the call was retried and gave up. Run fewer jobs with this token at once, or retry the workflow later.";
    case 'permission':
      return `The token lacks '${permission}' (a fork's pull_request token is read-only: use the two-workflow pattern in docs/action.md).`;
    case 'not-found':
      return `Not found: check the repository, the number or commit, and the token's access ('${permission}').`;
    case 'server':
      return 'GitHub answered with a server error on every retry; retry the workflow later.';
    case 'network':
      return 'GitHub could not be reached; check GITHUB_API_URL and the network of the runner.';
    default:
      return '';
  }
}
