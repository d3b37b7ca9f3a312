/**
 * What started this run, said in the comment from the event GitHub wrote (never from results.json): a
 * `/pgperf` command and who gave it, the `perf` label and who added it, a push to the PR, or the workflow
 * run a comment job reports for.
 */
import { parsePgperfCommand } from '../../core/pgperf-command.js';
import { escapeMarkdown } from '../../core/report/markdown-escape.js';
import type { ActionContext } from './context.js';
import type { PublishTarget } from '../../flows/compare/publish-target.js';

interface TriggerPayload {
  action?: unknown;
  sender?: { login?: unknown };
  label?: { name?: unknown };
  comment?: { body?: unknown; user?: { login?: unknown } };
  workflow_run?: { event?: unknown; triggering_actor?: { login?: unknown } };
}

/** What started a run ("/pgperf run", "label perf added", ...) and the login that did it. */
export interface Trigger {
  what: string;
  /** A GitHub login, as the event names it (GitHub vouches for it: mentioned as it is). */
  by?: string;
}

/** "/pgperf run" by alice, "label perf added" by bob, "a push to the PR" by carol, ...; undefined if unknown. */
export function triggerOf(ctx: ActionContext): Trigger | undefined {
  const p = ctx.payload as TriggerPayload;
  const trigger = (what: string, login: unknown): Trigger =>
    typeof login === 'string' && /^[A-Za-z0-9][A-Za-z0-9-]*(\[bot\])?$/.test(login)
      ? { what, by: login }
      : { what };
  switch (ctx.eventName) {
    case 'issue_comment': {
      const body = typeof p.comment?.body === 'string' ? p.comment.body : '';
      const parsed = parsePgperfCommand(body);
      return parsed ? trigger(parsed.text.slice(0, 120), p.comment?.user?.login) : { what: 'a PR comment' };
    }
    case 'pull_request':
    case 'pull_request_target':
      if (p.action === 'labeled' && typeof p.label?.name === 'string') {
        return trigger(`label ${p.label.name} added`, p.sender?.login);
      }
      if (p.action === 'synchronize') return trigger('a push to the PR', p.sender?.login);
      return typeof p.action === 'string' ? trigger(`the PR being ${p.action}`, p.sender?.login) : undefined;
    case 'workflow_run': {
      const event = typeof p.workflow_run?.event === 'string' ? p.workflow_run.event : 'unknown';
      const article = /^[aeiou]/.test(event) ? 'an' : 'a';
      return trigger(
        `the benchmark workflow of ${article} ${event} event`,
        p.workflow_run?.triggering_actor?.login,
      );
    }
    case '':
      return undefined;
    default:
      return trigger(`a ${ctx.eventName} event`, p.sender?.login);
  }
}

/** The trigger as markdown: its text escaped (a command's reason is anyone's words), the login mentioned. */
export function triggerText(trigger: Trigger | undefined): string {
  if (!trigger) return 'this workflow';
  return `${escapeMarkdown(trigger.what)}${trigger.by ? ` by @${trigger.by}` : ''}`;
}

/**
 * What started the run and which commit it measured, said under the comment's headline ('' when neither is
 * known): a command's run names the head it measured, and whether the PR head has moved on since.
 */
export function triggerNote(target: Pick<PublishTarget, 'headSha' | 'movedTo'>, ctx: ActionContext): string {
  const trigger = triggerOf(ctx);
  const moved = target.movedTo
    ? `; measured head ${target.headSha!.slice(0, 12)} as it was at the command: the PR head has since moved to ${target.movedTo.slice(0, 12)}, so this result is not about the current head`
    : ctx.eventName === 'issue_comment' && target.headSha
      ? `; measured head ${target.headSha.slice(0, 12)}, the PR head at the command`
      : '';
  return trigger || moved ? `_Triggered by ${triggerText(trigger)}${moved}._` : '';
}
