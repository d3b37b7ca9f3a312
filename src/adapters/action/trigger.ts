/**
 * What started this run, read from the event GitHub wrote (never from results.json): a `/pgperf` command
 * and who gave it, the `perf` label and who added it, a push to the PR, or the workflow run a comment job
 * reports for. The comment says it (src/core/report/trigger-note.ts).
 */
import { parsePgperfCommand } from '../../core/pgperf-command.js';
import type { Trigger } from '../../core/report/trigger-note.js';
import type { ActionContext } from './context.js';

interface TriggerPayload {
  action?: unknown;
  sender?: { login?: unknown };
  label?: { name?: unknown };
  comment?: { body?: unknown; user?: { login?: unknown } };
  workflow_run?: { event?: unknown; triggering_actor?: { login?: unknown } };
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
