/**
 * A `/pgperf` PR comment, handled: the job holds the write token, so it never builds or runs anything. It
 * acknowledges the comment (a reaction), checks the commenter's permission through the API (write,
 * maintain or admin; never from the comment text), and then either replies (help, a refusal, the grammar)
 * or decides the request for a read-only benchmark job (run-command.ts), an attribution for the attribute
 * job (attribute-command.ts), or records an acceptance for a comment job to apply (accept-command.ts). The adapter turns the decision into outputs.
 */
import { parsePgperfCommand } from '../../core/pgperf-command.js';
import { escapeMarkdown } from '../../core/report/markdown-escape.js';
import { errorMessage } from '../../core/util/errors.js';
import { STEERING_PERMISSIONS } from '../publish/acceptances.js';
import { acceptRegression } from './accept-command.js';
import type { CommentEvent, PrCommandDeps } from './pr-command-types.js';
import { REFUSAL_MARKER, refusalReplyLimited } from './refusal-replies.js';
import { grammarList, replyText } from '../../core/report/markdown/reply-text.js';
import { requestRun } from './run-command.js';
import { requestAttribution } from './attribute-command.js';

/**
 * Handles the comment `event`; a comment that is not a new `/pgperf` command on a pull request is left
 * alone (logged, nothing decided). The decision, when there is one, goes to `deps.decided`.
 */
export async function handlePrCommand(event: CommentEvent, deps: PrCommandDeps): Promise<void> {
  const { api, logger } = deps;
  if (event.prNumber === undefined) {
    logger.info('the comment is on an issue, not a pull request: nothing to do');
    return;
  }
  const parsed = parsePgperfCommand(event.body);
  if (!parsed) {
    logger.info('the comment does not start with /pgperf: nothing to do');
    return;
  }
  if (event.action !== 'created') {
    // An edit could turn any old comment (even one by a since-removed maintainer) into a command.
    logger.info(`the comment was ${event.action}, not created: only a new comment is a command`);
    return;
  }
  const prNumber = event.prNumber;
  await api.addReaction(event.commentId, 'eyes');
  const reply = async (text: string) => {
    await api.createComment(prNumber, replyText(parsed.text, event.login, text));
  };
  const permission = await api.permission(event.login);
  if (!STEERING_PERMISSIONS.includes(permission)) {
    logger.info(`@${event.login} has ${permission} permission: refused, nothing starts`);
    deps.decided({ command: 'refused' });
    // Unknown whether a reply is due (the comments could not be read): none, as when one is not.
    const quiet = await refusalReplyLimited(api, prNumber, event).catch(
      (e: unknown) => `the PR's comments could not be read to limit the replies (${errorMessage(e)})`,
    );
    if (quiet) {
      logger.info(`no reply (only the reaction): ${quiet}`);
      return;
    }
    await reply(
      `sorry, pgperf runs and acceptances need write, maintain or admin permission on this repository, and yours is ${permission}. A maintainer can run \`/pgperf run\` for you.\n\n${REFUSAL_MARKER}`,
    );
    return;
  }
  if (!parsed.ok) {
    logger.info(`not a valid command: ${parsed.problem}`);
    deps.decided({ command: 'invalid' });
    await reply(`${escapeMarkdown(parsed.problem)}. The accepted words are:\n\n${grammarList()}`);
    return;
  }
  const command = parsed.command;
  if (command.kind === 'help') {
    deps.decided({ command: 'help' });
    await reply(`pgperf understands:\n\n${grammarList()}\n\nSee docs/pr-commands.md.`);
    return;
  }
  const pr = await api.pullRequest(prNumber);
  if (pr.state !== 'open') {
    logger.info(`PR #${prNumber} is ${pr.state}: refused`);
    deps.decided({ command: 'refused' });
    await reply(`PR #${prNumber} is ${pr.state}: pgperf measures and accepts only on open pull requests.`);
    return;
  }
  const handling = { ...deps, event, pr, reply };
  if (command.kind === 'accept') return acceptRegression(command, handling);
  if (command.kind === 'attribute') return requestAttribution(command, handling);
  return requestRun(command, handling);
}
