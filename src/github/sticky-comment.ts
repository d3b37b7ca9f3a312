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
  const existing = findStickyComment(comments, login, input.marker);
  const wanted = typeof input.body === 'string' ? input.body : input.body(existing?.body);
  if (existing && wanted === undefined) return { action: 'kept', comment: existing };
  const body = wanted ?? '';
  if (existing) return { action: 'updated', comment: await api.updateComment(existing.id, body) };
  return { action: 'created', comment: await api.createComment(input.issueNumber, body) };
}

/** The sticky comment among `comments`: the oldest `login` wrote with the marker (a race may leave two). */
export function findStickyComment(
  comments: readonly IssueComment[],
  login: string,
  marker: string,
): IssueComment | undefined {
  return comments
    .filter((c) => c.userLogin === login && c.body.includes(marker))
    .sort((a, b) => a.id - b.id)[0];
}
