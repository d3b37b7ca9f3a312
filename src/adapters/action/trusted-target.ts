/**
 * What GitHub's event vouches for, read from the Action's context for the flow that decides where a
 * verdict may go (src/flows/publish/publish-target.ts); a pull-request event whose payload names no usable
 * PR is refused here (pullRequestOf).
 */
import type { RunResult } from '../../core/results/result-types.js';
import * as targets from '../../flows/publish/publish-target.js';
import { pullRequestOf, type ActionContext } from './context.js';

interface EventPayload {
  workflow_run?: { head_sha?: unknown; pull_requests?: Array<{ number?: unknown }> };
  issue?: { number?: unknown; pull_request?: unknown };
}

/** The event's name and commit, the PR its payload names, a workflow_run's head and PRs, a comment's PR. */
export function vouchedEventOf(ctx: ActionContext): targets.VouchedEvent {
  const { workflow_run: run, issue } = ctx.payload as EventPayload;
  const pr = pullRequestOf(ctx);
  const prNumbersOf = (listed: Array<{ number?: unknown }>) =>
    listed.map((p) => p.number).filter((n): n is number => typeof n === 'number');
  return {
    name: ctx.eventName,
    sha: ctx.sha,
    ...(pr ? { pr: { number: pr.number, headSha: pr.head.sha } } : {}),
    ...(run && typeof run.head_sha === 'string'
      ? { workflowRun: { headSha: run.head_sha, prNumbers: prNumbersOf(run.pull_requests ?? []) } }
      : {}),
    ...(typeof issue?.number === 'number' && issue.pull_request ? { commentOnPr: issue.number } : {}),
  };
}

/** The benchmark job's target (publish-target.ts), from this run's event. */
export const benchmarkTarget = (ctx: ActionContext, result: RunResult, prNumber: number | undefined) =>
  targets.benchmarkTarget(vouchedEventOf(ctx), result, prNumber);
