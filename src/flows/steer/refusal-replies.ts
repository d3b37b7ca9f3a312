/**
 * The limit on replies to commenters without permission: at most one per PR per hour, found by the bot's
 * own hidden marker and its created_at; their other commands get only the reaction, so anyone who can
 * comment cannot make the bot post without limit.
 */
import { parsePgperfCommand } from '../../core/pgperf-command.js';
import type { GitHubApi } from '../../github/api.js';
import type { CommentEvent } from './pr-command-types.js';

/**
 * The hidden marker of the bot's reply to a commenter without permission: the last such reply on the PR,
 * found by this marker among the comments of the token's own login, and its created_at, limit the replies.
 */
export const REFUSAL_MARKER = '<!-- pgperf:refused-permission -->';

/**
 * At most one reply per PR in this window to commenters without permission; their other commands get only
 * the reaction, so anyone who can comment cannot make the bot post without limit.
 */
export const REFUSAL_REPLY_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Why the refusal to a commenter without permission gets no reply, or undefined when it gets one. A reply
 * is due when nothing was replied within REFUSAL_REPLY_INTERVAL_MS before the command: neither the bot's
 * own comment with REFUSAL_MARKER (one without a time GitHub recorded counts as recent) nor, for a burst of
 * commands whose jobs run at once (none of them sees another's reply yet), an earlier `/pgperf` comment of
 * the same commenter that this rule, applied to it in turn, answers. Every job of a burst computes the same
 * from the same comments, so only the first gets the reply. "Now" is the command's created_at, GitHub's
 * clock as the replies' created_at are (the runner's clock when the payload has none); a reply created
 * after the command (a queued job) counts as recent.
 */
export async function refusalReplyLimited(
  api: GitHubApi,
  prNumber: number,
  event: CommentEvent,
): Promise<string | undefined> {
  const [login, comments] = await Promise.all([api.viewerLogin(), api.listComments(prNumber)]);
  const recent = (at: number, before: number) => Number.isNaN(at) || before - at < REFUSAL_REPLY_INTERVAL_MS;
  const replies = comments
    .filter((c) => c.userLogin === login && c.body.includes(REFUSAL_MARKER))
    .map((c) => ({ at: c.createdAt === undefined ? NaN : Date.parse(c.createdAt), what: `comment ${c.id}` }));
  const earlier = comments
    .filter(
      (c) =>
        c.id < event.commentId &&
        c.userLogin === event.login &&
        c.createdAt !== undefined &&
        parsePgperfCommand(c.body) !== undefined,
    )
    .sort((a, b) => a.id - b.id);
  for (const c of earlier) {
    const at = Date.parse(c.createdAt!);
    if (!Number.isNaN(at) && !replies.some((r) => recent(r.at, at))) {
      replies.push({ at, what: `the reply to @${event.login}'s earlier command ${c.id}` });
    }
  }
  const now = event.createdAtMs ?? Date.now();
  const last = replies.find((r) => recent(r.at, now));
  if (last === undefined) return undefined;
  return `PR #${prNumber} had a reply to a commenter without permission within the hour (${last.what}): at most one per PR per hour`;
}
