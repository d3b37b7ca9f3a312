/**
 * The GitHub REST calls pgperf makes, behind a small interface so that the action's logic can be tested
 * against a recording server and the rest of the code never sees octokit.
 */
export interface IssueComment {
  id: number;
  body: string;
  userLogin: string;
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
}

/** An API failure with its HTTP status, so callers can say which permission is missing. */
export class GitHubApiError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
    this.name = 'GitHubApiError';
  }
}
