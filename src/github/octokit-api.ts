/** GitHubApi over octokit (from @actions/github), for one repository. */
import { getOctokit } from '@actions/github';
import { GitHubApiError, type GitHubApi, type IssueComment } from './api.js';

/** The login GITHUB_TOKEN's comments carry; GET /user is not allowed for that token. */
export const ACTIONS_BOT_LOGIN = 'github-actions[bot]';

export interface OctokitApiOptions {
  token: string;
  /** GITHUB_API_URL (https://api.github.com, a GHES URL, or a test server). */
  baseUrl: string;
  owner: string;
  repo: string;
}

export function octokitApi(options: OctokitApiOptions): GitHubApi {
  const octokit = getOctokit(options.token, { baseUrl: options.baseUrl, request: { retries: 0 } });
  const { owner, repo } = options;
  const call = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      const status = (e as { status?: number }).status;
      throw new GitHubApiError(`${what}: ${(e as Error).message}`, status);
    }
  };
  const toComment = (c: {
    id: number;
    body?: string | null;
    user?: { login: string } | null;
  }): IssueComment => ({
    id: c.id,
    body: c.body ?? '',
    userLogin: c.user?.login ?? '',
  });

  return {
    async viewerLogin() {
      try {
        const { data } = await octokit.rest.users.getAuthenticated();
        return data.login;
      } catch (e) {
        // Installation tokens (GITHUB_TOKEN) may not read /user; their comments are the Actions bot's.
        const status = (e as { status?: number }).status;
        if (status === 403 || status === 404) return ACTIONS_BOT_LOGIN;
        throw new GitHubApiError(`GET /user: ${(e as Error).message}`, status);
      }
    },
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
    pullRequestHead: (prNumber) =>
      call(`read PR #${prNumber}`, async () => {
        const { data } = await octokit.rest.pulls.get({ owner, repo, pull_number: prNumber });
        return data.head.sha;
      }),
  };
}
