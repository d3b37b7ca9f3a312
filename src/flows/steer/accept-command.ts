/**
 * `/pgperf accept`: the named failing cells of the result the sticky comment shows, for its commit,
 * recorded in the bot's own reply (src/flows/publish/acceptances.ts), and decided for a comment job to
 * publish again; refused when there is no result, it is for an older head, or nothing named fails.
 */
import type { PgperfCommand } from '../../core/pgperf-command.js';
import { commentMarker } from '../../core/report/comment/comment-marker.js';
import { readCommentState } from '../../core/report/comment/comment-state.js';
import { findStickyComment } from '../../github/sticky-comment.js';
import { renderAcceptanceRecord, type AcceptanceRecord } from '../publish/acceptances.js';
import type { CommandContext } from './pr-command-types.js';
import { acceptedReply } from '../../core/report/markdown/reply-text.js';

/** accept: the named failing cells of the result the comment shows, for its commit, recorded in a reply. */
export async function acceptRegression(
  command: Extract<PgperfCommand, { kind: 'accept' }>,
  c: CommandContext,
): Promise<void> {
  const marker = commentMarker(c.stickyId);
  const [login, comments] = await Promise.all([c.api.viewerLogin(), c.api.listComments(c.pr.number)]);
  const sticky = findStickyComment(comments, login, marker);
  const state = sticky ? readCommentState(sticky.body) : undefined;
  const refuse = async (text: string) => {
    c.decided({ command: 'refused' });
    c.logger.info(`accept refused: ${text}`);
    await c.reply(text);
  };
  if (!state) return refuse('there is no pgperf result on this PR to accept yet: run `/pgperf run` first.');
  if (state.sha !== c.pr.headSha) {
    return refuse(
      `the result shown is for ${state.sha.slice(0, 12)}, but the PR head is now ${c.pr.headSha.slice(0, 12)}: run \`/pgperf run\` first, then accept what it finds.`,
    );
  }
  const target = `${command.workload}${command.clients !== undefined ? `@${command.clients}` : ''}`;
  const cells = state.cells.filter(
    (s) =>
      s.workload === command.workload &&
      (command.clients === undefined || s.clients === command.clients) &&
      s.failsGate &&
      s.deltaPct !== null,
  );
  if (cells.length === 0) {
    const failing = state.cells.filter((s) => s.failsGate).map((s) => `${s.workload}@${s.clients}`);
    return refuse(
      `no cell of \`${target}\` fails the gate in the result for ${state.sha.slice(0, 12)}${failing.length > 0 ? ` (failing: ${[...new Set(failing)].join(', ')})` : ' (nothing fails)'}: nothing to accept.`,
    );
  }
  const record: AcceptanceRecord = {
    commandId: c.event.commentId,
    by: c.event.login,
    sha: state.sha,
    reason: command.reason,
    cells: cells.map((s) => ({
      workload: s.workload,
      clients: s.clients,
      metric: s.metric,
      deltaPct: s.deltaPct!,
    })),
  };
  await c.api.createComment(
    c.pr.number,
    acceptedReply(
      {
        command: `/pgperf accept ${target} ${command.reason}`,
        login: c.event.login,
        sha: state.sha,
        reason: command.reason,
        cells: record.cells,
      },
      renderAcceptanceRecord(record),
    ),
  );
  await c.api.addReaction(c.event.commentId, '+1');
  c.decided({
    command: 'accept',
    prNumber: c.pr.number,
    headSha: state.sha,
    ...(state.runId !== undefined ? { resultsRunId: state.runId } : {}),
  });
}
