/**
 * What the action knows about the workflow run (from the runner's environment and the event payload),
 * parsed once by the adapter, and the choice of base and head commits.
 */
import { UserError } from '../util/errors.js';
import type { GitHubApi } from '../github/api.js';
import type { ActionInputs } from './inputs.js';

export interface ActionContext {
  eventName: string;
  /** The event payload (GITHUB_EVENT_PATH). */
  payload: Record<string, unknown>;
  owner: string;
  repo: string;
  /** GITHUB_SHA: the commit the workflow runs on. */
  sha: string;
  serverUrl: string;
  runUrl?: string;
  workspace: string;
}

export interface CommitChoice {
  label: 'base' | 'head';
  ref?: string;
  sha?: string;
  /** How the commit was chosen, said in the report. */
  chosenBy: string;
}

export interface Commits {
  base: CommitChoice;
  head: CommitChoice;
  prNumber?: number;
}

interface PullRequestPayload {
  number: number;
  head: { sha: string; ref: string };
  base: { sha: string; ref: string };
}

/** The PR of a pull_request(_target) event, or undefined. */
export function pullRequestOf(ctx: ActionContext): PullRequestPayload | undefined {
  const pr = ctx.payload.pull_request as PullRequestPayload | undefined;
  return pr && typeof pr.number === 'number' && pr.head?.sha && pr.base?.sha ? pr : undefined;
}

/**
 * Pull requests: base = merge-base of the PR head and the base branch, head = the PR head.
 * Other events (push, schedule, workflow_dispatch, /perf comments): the explicit base-ref and head-ref.
 * Inputs always win over the event.
 */
export async function chooseCommits(
  ctx: ActionContext,
  inputs: ActionInputs,
  api: GitHubApi | undefined,
): Promise<Commits> {
  const pr = pullRequestOf(ctx);
  const prNumber = inputs.prNumber ?? pr?.number;
  const explicit = (label: 'base' | 'head', ref: string): CommitChoice => ({
    label,
    ref,
    chosenBy: `input ${label}-ref`,
  });
  if (pr) {
    const head: CommitChoice = inputs.headRef
      ? explicit('head', inputs.headRef)
      : { label: 'head', ref: pr.head.ref, sha: pr.head.sha, chosenBy: `head of PR #${pr.number}` };
    if (inputs.baseRef) return { base: explicit('base', inputs.baseRef), head, prNumber };
    if (!api)
      throw new UserError(
        "choosing the PR's merge-base needs the GitHub API: set 'github-token', or set 'base-ref'",
      );
    const sha = await api.mergeBase(pr.base.sha, head.sha ?? pr.head.sha);
    return {
      base: {
        label: 'base',
        ref: pr.base.ref,
        sha,
        chosenBy: `merge-base of ${pr.base.ref} and the PR head`,
      },
      head,
      prNumber,
    };
  }
  if (inputs.baseRef && inputs.headRef) {
    return { base: explicit('base', inputs.baseRef), head: explicit('head', inputs.headRef), prNumber };
  }
  if (inputs.baseBinDir && inputs.headBinDir) {
    const given = (label: 'base' | 'head', dir: string): CommitChoice => ({
      label,
      chosenBy: `input ${label}-bin-dir (${dir})`,
    });
    return { base: given('base', inputs.baseBinDir), head: given('head', inputs.headBinDir), prNumber };
  }
  throw new UserError(
    `the '${ctx.eventName}' event has no pull request: set the inputs 'base-ref' and 'head-ref' (or 'base-bin-dir' and 'head-bin-dir')`,
  );
}
