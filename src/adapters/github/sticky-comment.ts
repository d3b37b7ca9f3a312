/**
 * One comment per (PR, comment id), updated in place: found by its hidden marker among the comments
 * the token's own login wrote, across all pages. Look-alike comments by anyone else are left alone.
 */
import type { GitHubApi, IssueComment } from './api.js';

export type StickyResult =
  | { action: 'created' | 'updated'; comment: IssueComment }
  /** The body function chose to leave the existing comment as it is. */
  | { action: 'kept'; comment: IssueComment };

export async function upsertStickyComment(
  api: GitHubApi,
  input: {
    issueNumber: number;
    marker: string;
    /**
     * The new body, or a function of the existing comment's body (undefined when there is none); the
     * function returns undefined to keep an existing comment unchanged.
     */
    body: string | ((existing: string | undefined) => string | undefined);
  },
): Promise<StickyResult> {
  const [login, comments] = await Promise.all([api.viewerLogin(), api.listComments(input.issueNumber)]);
  const mine = comments.filter((c) => c.userLogin === login && c.body.includes(input.marker));
  // Several matches can exist after a race between two jobs: keep updating the oldest.
  const existing = mine.sort((a, b) => a.id - b.id)[0];
  const wanted = typeof input.body === 'string' ? input.body : input.body(existing?.body);
  if (existing && wanted === undefined) return { action: 'kept', comment: existing };
  const body = wanted ?? '';
  if (existing) return { action: 'updated', comment: await api.updateComment(existing.id, body) };
  return { action: 'created', comment: await api.createComment(input.issueNumber, body) };
}
