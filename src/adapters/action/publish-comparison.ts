/**
 * The Action's side of publishing a verdict (src/flows/publish/publish.ts, and the consolidation's): the
 * inputs and the workflow run as the flow's `Publishing`, the job summary and outputs through gate.ts, and
 * the step's outcome. Used by modes benchmark, comment and consolidate.
 */
import type { RunComparison } from '../../core/compare/comparison-types.js';
import type { RunResult } from '../../core/results/result-types.js';
import { publishVerdict, type Publishing } from '../../flows/publish/publish.js';
import type { PublishTarget } from '../../flows/publish/publish-target.js';
import type { ActionDeps, ActionOutcome } from './action-deps.js';
import type { ActionContext } from './context.js';
import { outcomeOf, outputSide } from './gate.js';
import type { ActionInputs } from './inputs.js';
import { triggerNote } from '../../core/report/trigger-note.js';
import { triggerOf } from './trigger.js';

/** Where and how the job publishes: results-dir, fail-on, the target, comment, commit-status, comment-id. */
export function publishingOf(
  inputs: ActionInputs,
  ctx: ActionContext,
  target: PublishTarget,
  resultsDir: string,
): Publishing {
  const { comment, commitStatus, commentId } = inputs;
  const post = { comment, commitStatus, commentId };
  return { resultsDir, failOn: inputs.failOn, target, post, runId: ctx.runId, runUrl: ctx.runUrl };
}

export async function publishComparison(
  run: { result: RunResult; comparison: RunComparison },
  target: PublishTarget,
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
  resultsDir: string,
): Promise<ActionOutcome> {
  const verdict = {
    ...publishingOf(inputs, ctx, target, resultsDir),
    commentOn: inputs.commentOn,
    note: triggerNote(triggerOf(ctx), target, ctx.eventName === 'issue_comment'),
  };
  const published = await publishVerdict(run, verdict, outputSide(deps.io), deps);
  return outcomeOf(published.decision, published.resultsFile, published.reportFile);
}
