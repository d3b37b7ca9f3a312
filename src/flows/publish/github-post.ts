/**
 * Posting a verdict to GitHub: the sticky PR comment (one per comment-id) and the commit status (context
 * pgperf/<comment-id>) on the target that publish-target.ts established. Shared by every flow that
 * publishes (a comparison, a consolidation). API failures become warnings: the verdict still decides the step.
 */
import { GitHubApiError, apiFailureHint, type CommitState, type GitHubApi } from '../../github/api.js';
import { upsertStickyComment } from '../../github/sticky-comment.js';
import type { GateDecision } from '../../core/compare/decision/flow-decision.js';
import { commentMarker } from '../../core/report/markdown/markdown.js';
import type { Logger } from '../../core/util/logger.js';
import type { PublishTarget } from './publish-target.js';

export interface GitHubPost {
  /**
   * The comment body, or a function of the existing comment's body (undefined when there is none) that
   * returns undefined to leave the existing comment as it is.
   */
  body: string | ((existing: string | undefined) => string | undefined);
  status: { state: CommitState; description: string; targetUrl?: string };
}

/** What the job posts: the comment and the commit status each on or off, and the comment's id. */
export interface PostOptions {
  comment: boolean;
  commitStatus: boolean;
  commentId: string;
}

/** The API to post through (absent: nothing is posted) and the log. */
export interface PostDeps {
  logger: Logger;
  api?: GitHubApi;
}

export async function postToGitHub(
  post: GitHubPost,
  target: PublishTarget,
  options: PostOptions,
  deps: PostDeps,
): Promise<void> {
  const { logger, api } = deps;
  if (api && options.comment) {
    if (target.prNumber === undefined) {
      logger.info('no pull request to comment on (not a pull_request event and no pr-number input)');
    } else {
      const prNumber = target.prNumber;
      await tolerateApiError(logger, 'pull-requests: write (or issues: write)', async () => {
        const done = await upsertStickyComment(api, {
          issueNumber: prNumber,
          marker: commentMarker(options.commentId),
          body: post.body,
        });
        logger.info(`${done.action} the comment on #${prNumber} (id ${done.comment.id})`);
      });
    }
  }
  if (api && options.commitStatus && target.headSha) {
    const headSha = target.headSha;
    await tolerateApiError(logger, 'statuses: write', () =>
      api.setCommitStatus(headSha, { ...post.status, context: `pgperf/${options.commentId}` }),
    );
  }
}

/** The commit status of the decision, linked to the run. */
export function statusOf(decision: GateDecision, runUrl: string | undefined) {
  return { ...decision.status, ...(runUrl ? { targetUrl: runUrl } : {}) };
}

/** Runs a GitHub call; a failure is a warning naming the permission the workflow probably lacks. */
export async function tolerateApiError(
  logger: Logger,
  permission: string,
  fn: () => Promise<void>,
): Promise<void> {
  try {
    await fn();
  } catch (e) {
    if (!(e instanceof GitHubApiError)) throw e;
    const hint = apiFailureHint(e, permission);
    logger.warn(
      `${e.message}.${hint ? ` ${hint}` : ''} The results are saved and the verdict still decides the step.`,
    );
  }
}
