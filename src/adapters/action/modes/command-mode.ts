/**
 * Mode command: a `/pgperf` PR comment (issue_comment), read out of the event payload and handled by the
 * steer flow (src/flows/steer/pr-command.ts); its decision becomes the outputs a benchmark or comment job
 * reads.
 */
import { UserError } from '../../../core/util/errors.js';
import { commandDecision } from '../../../flows/steer/command-decision.js';
import { publishGate } from '../gate.js';
import { handlePrCommand } from '../../../flows/steer/pr-command.js';
import type { CommandDecision, CommentEvent } from '../../../flows/steer/pr-command-types.js';
import type { ActionMode } from '../action-deps.js';
import type { ActionContext } from '../context.js';
import { loadInputWorkloads } from '../workloads.js';

export const runCommandMode: ActionMode = async (inputs, ctx, deps, resultsDir) => {
  for (const name of ['run', 'republish', 'attribute']) deps.io.setOutput(name, 'false');
  deps.io.setOutput('command', '');
  if (ctx.eventName !== 'issue_comment') {
    throw new UserError(
      `mode command runs on issue_comment events (a PR comment starting with /pgperf), got '${ctx.eventName}': see docs/pr-commands.md`,
    );
  }
  // The workloads a command may name: the entries of the input 'workloads', by their names.
  const workloads = {
    entries: inputs.workloads.length ? inputs.workloads : ['select-only'],
    nameOf: async (entry: string) =>
      (await loadInputWorkloads({ workloads: [entry] }, ctx, deps.actionDir))[0]!.name,
  };
  let taken: CommandDecision | undefined;
  const decided = (d: CommandDecision) => {
    taken = d;
    Object.entries({ command: d.command, ...outputsOf(d) }).forEach(([k, v]) => deps.io.setOutput(k, v));
  };
  const flowDeps = { api: deps.api!, logger: deps.logger, stickyId: inputs.commentId, workloads, decided };
  await handlePrCommand(commentEventOf(ctx), flowDeps);
  const files = { dir: resultsDir, resultsFile: '', reportFile: '' };
  return publishGate(deps.io, commandDecision(taken, inputs.failOn), files, (l) => deps.logger.info(l));
};

/**
 * The outputs of a decision besides `command`: a run's request for the benchmark job, a republish's, or an
 * attribution's for the attribute job.
 */
function outputsOf(d: CommandDecision): Record<string, string> {
  if (!('prNumber' in d)) return {};
  if (d.command === 'attribute') {
    // For the attribute job: mode attribute, base-ref and head-ref the range, pr-number where it replies.
    return {
      attribute: 'true',
      'pr-number': String(d.prNumber),
      'attribute-from': d.from,
      'attribute-to': d.to,
      workloads: d.workloads.join('\n'),
    };
  }
  const request = { 'pr-number': String(d.prNumber), 'head-sha': d.headSha };
  if (d.command === 'accept')
    return { republish: 'true', ...request, 'results-run-id': d.resultsRunId ?? '' };
  return {
    run: 'true',
    ...request,
    'base-sha': d.baseSha,
    workloads: d.workloads.join('\n'),
    'client-counts': d.clientCounts ? d.clientCounts.join(',') : '',
    rounds: d.rounds !== undefined ? String(d.rounds) : '',
  };
}

/** The comment fields of an issue_comment payload; a payload without them is refused naming the fields. */
function commentEventOf(ctx: ActionContext): CommentEvent {
  const p = ctx.payload as {
    action?: unknown;
    issue?: { number?: unknown; pull_request?: unknown };
    comment?: { id?: unknown; body?: unknown; user?: { login?: unknown }; created_at?: unknown };
  };
  const missing = [
    typeof p.issue?.number === 'number' ? '' : 'issue.number',
    typeof p.comment?.id === 'number' ? '' : 'comment.id',
    typeof p.comment?.user?.login === 'string' ? '' : 'comment.user.login',
    typeof p.comment?.body === 'string' ? '' : 'comment.body',
  ].filter(Boolean);
  if (missing.length > 0) {
    throw new UserError(
      `the issue_comment event payload (GITHUB_EVENT_PATH ${ctx.eventPath ?? 'not set'}) has no ${missing.join(', ')}; expected the payload GitHub writes for a comment`,
    );
  }
  const created = typeof p.comment?.created_at === 'string' ? Date.parse(p.comment.created_at) : NaN;
  return {
    action: typeof p.action === 'string' ? p.action : '',
    ...(p.issue!.pull_request ? { prNumber: p.issue!.number as number } : {}),
    commentId: p.comment!.id as number,
    login: p.comment!.user!.login as string,
    body: p.comment!.body as string,
    ...(Number.isNaN(created) ? {} : { createdAtMs: created }),
  };
}
