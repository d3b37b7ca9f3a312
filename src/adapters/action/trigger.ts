/**
 * What started this run, said in the comment from the event GitHub wrote (never from results.json): a
 * `/pgperf` command and who gave it, the `perf` label and who added it, a push to the PR, or the workflow
 * run a comment job reports for.
 */
import { parsePgperfCommand } from '../../core/pgperf-command.js';
import type { ActionContext } from './context.js';

interface TriggerPayload {
  action?: unknown;
  sender?: { login?: unknown };
  label?: { name?: unknown };
  comment?: { body?: unknown; user?: { login?: unknown } };
  workflow_run?: { event?: unknown; triggering_actor?: { login?: unknown } };
}

/** "`/pgperf run` by @alice", "label perf added by @bob", "a push to the PR by @carol", ...; undefined if unknown. */
export function triggerOf(ctx: ActionContext): string | undefined {
  const p = ctx.payload as TriggerPayload;
  const by = (login: unknown) => (typeof login === 'string' && login !== '' ? ` by @${login}` : '');
  switch (ctx.eventName) {
    case 'issue_comment': {
      const body = typeof p.comment?.body === 'string' ? p.comment.body : '';
      const parsed = parsePgperfCommand(body);
      return parsed ? `${parsed.text.slice(0, 120)}${by(p.comment?.user?.login)}` : 'a PR comment';
    }
    case 'pull_request':
    case 'pull_request_target':
      if (p.action === 'labeled' && typeof p.label?.name === 'string') {
        return `label ${p.label.name} added${by(p.sender?.login)}`;
      }
      if (p.action === 'synchronize') return `a push to the PR${by(p.sender?.login)}`;
      return typeof p.action === 'string' ? `the PR being ${p.action}${by(p.sender?.login)}` : undefined;
    case 'workflow_run': {
      const event = typeof p.workflow_run?.event === 'string' ? p.workflow_run.event : 'unknown';
      const article = /^[aeiou]/.test(event) ? 'an' : 'a';
      return `the benchmark workflow of ${article} ${event} event${by(p.workflow_run?.triggering_actor?.login)}`;
    }
    case '':
      return undefined;
    default:
      return `a ${ctx.eventName} event${by(p.sender?.login)}`;
  }
}
