/**
 * Where the comment and the commit status may go, decided from what GitHub vouches for (the event, read
 * once by the adapter into a `VouchedEvent`, and the API), never from results.json alone: in `mode: comment`
 * the results come from an artifact that a fork's code wrote, so a forged PR number or head sha there must
 * not redirect the write-token job.
 */
import type { GitHubApi } from '../../github/api.js';
import type { RunResult } from '../../core/results/result-types.js';
import { UserError } from '../../core/util/errors.js';

export interface PublishTarget {
  /** The PR to comment on, if any. */
  prNumber?: number;
  /** The commit the status goes on, if any. */
  headSha?: string;
  /** How the target was established, for the log. */
  basis: string;
  /** The PR's head now, when it moved on from the measured headSha (a /pgperf command's run). */
  movedTo?: string;
}

/** What GitHub's event vouches for: its name, the commit the workflow runs on, and what its payload names. */
export interface VouchedEvent {
  /** The event's name (pull_request, workflow_run, issue_comment, ...). */
  name: string;
  /** The commit the workflow runs on (GITHUB_SHA). */
  sha: string;
  /** The pull request the payload names (a pull_request event). */
  pr?: { number: number; headSha: string };
  /** A workflow_run event: the commit the run measured and the PRs GitHub lists for it. */
  workflowRun?: { headSha: string; prNumbers: number[] };
  /** An issue_comment event: the PR the comment is on (undefined: not on a pull request). */
  commentOnPr?: number;
}

/**
 * The target of a benchmark job: the event's PR (or the pr-number input) and the commit it measured.
 */
export function benchmarkTarget(
  event: VouchedEvent,
  result: RunResult,
  prNumberInput: number | undefined,
): PublishTarget {
  const { pr } = event;
  return {
    prNumber: prNumberInput ?? pr?.number,
    headSha: result.source?.head?.sha ?? event.sha,
    basis: pr ? `the ${event.name} event of PR #${pr.number}` : `the ${event.name} event`,
  };
}

/**
 * The target of a comment job. The commit comes from the event (workflow_run: the head_sha of the run that
 * produced the artifact; pull_request: the PR head) or, failing that, from the PR the pr-number input names,
 * read through the API. The PR must be one whose head is that commit. results.json must agree with both,
 * or nothing is written.
 */
export async function commentTarget(
  event: VouchedEvent,
  result: RunResult,
  prNumberInput: number | undefined,
  api: GitHubApi | undefined,
  file: string,
  headRefInput?: string,
): Promise<PublishTarget> {
  const target =
    event.name === 'issue_comment'
      ? await commandTarget(event, prNumberInput, api, headRefInput)
      : await eventTarget(event, prNumberInput, api, 'mode comment', result.source?.prNumber);
  checkClaims(result, target, file);
  return target;
}

/**
 * What the event vouches for (see commentTarget), before any results are read: the commit and the PR.
 * `claimedPr` (a PR number the results name) is used, checked through the API, when nothing else names one.
 */
export async function eventTarget(
  event: VouchedEvent,
  prNumberInput: number | undefined,
  api: GitHubApi | undefined,
  mode: string,
  claimedPr?: number,
): Promise<PublishTarget> {
  const { workflowRun: run, pr } = event;
  let headSha: string | undefined;
  let basis: string;
  // PR numbers GitHub itself put in the event belong to the event's commit; any other PR number (the input,
  // or the one results.json claims) is checked through the API: its head must be that commit.
  let vouched: number | undefined;
  if (run) {
    headSha = run.headSha;
    vouched = run.prNumbers[0];
    basis = `the workflow_run event (head ${headSha.slice(0, 12)})`;
  } else if (pr) {
    headSha = pr.headSha;
    vouched = pr.number;
    basis = `the ${event.name} event of PR #${pr.number}`;
  } else {
    basis = `input 'pr-number'`;
  }
  // A fork's workflow_run lists no PRs: then the input names it, else the claim is checked.
  const prNumber = prNumberInput ?? vouched ?? claimedPr;
  if (prNumber !== undefined && prNumber !== vouched) {
    if (!api) {
      throw new UserError(
        `${mode}: PR #${prNumber} cannot be checked against the commit without the API: set 'github-token'`,
      );
    }
    const actual = await api.pullRequestHead(prNumber);
    if (headSha === undefined) headSha = actual;
    else if (actual !== headSha) {
      throw new UserError(
        `${mode}: PR #${prNumber}'s head is ${actual.slice(0, 12)}, not ${headSha.slice(0, 12)}, the commit ${basis} measured; refusing to comment or set a status (set 'pr-number' to the PR of that commit)`,
      );
    }
  }
  if (headSha === undefined) {
    throw new UserError(
      `${mode}: cannot tell which commit the results belong to: run it on workflow_run or pull_request, or set 'pr-number' (with 'github-token')`,
    );
  }
  return { ...(prNumber !== undefined ? { prNumber } : {}), headSha, basis };
}

/**
 * The target of a comment job of a `/pgperf` command (issue_comment): the PR GitHub says the comment is
 * on, and the commit the command job resolved and the benchmark measured (input head-ref, a full sha from
 * the command job's outputs), else the PR head now. When the PR has moved on since, the result is still
 * posted for the commit it measured, and the comment says so.
 */
async function commandTarget(
  event: VouchedEvent,
  prNumberInput: number | undefined,
  api: GitHubApi | undefined,
  headRefInput: string | undefined,
): Promise<PublishTarget> {
  const prNumber = event.commentOnPr;
  if (prNumber === undefined) {
    throw new UserError(
      'mode comment on issue_comment: the comment is not on a pull request; refusing to comment or set a status',
    );
  }
  if (prNumberInput !== undefined && prNumberInput !== prNumber) {
    throw new UserError(
      `mode comment: input 'pr-number' is ${prNumberInput}, but the /pgperf command was on PR #${prNumber}; refusing to comment or set a status`,
    );
  }
  if (!api)
    throw new UserError(
      "mode comment on issue_comment reads the PR's head through the API: set 'github-token'",
    );
  const now = await api.pullRequestHead(prNumber);
  const measured = headRefInput !== undefined && /^[0-9a-f]{40}$/.test(headRefInput) ? headRefInput : now;
  return {
    prNumber,
    headSha: measured,
    basis: `the /pgperf command on PR #${prNumber} (head ${measured.slice(0, 12)})`,
    ...(now !== measured ? { movedTo: now } : {}),
  };
}

/** A results document must agree with the target on the commit and the PR it names, or nothing is written. */
export function checkClaims(result: RunResult, target: PublishTarget, file: string): void {
  const claimed = { pr: result.source?.prNumber, sha: result.source?.head?.sha };
  const headSha = target.headSha!;
  if (claimed.sha !== undefined && claimed.sha !== headSha) {
    throw new UserError(
      `${file}: source.head.sha is ${claimed.sha.slice(0, 12)}, but ${target.basis} is for ${headSha.slice(0, 12)}; the results do not belong to this run, refusing to comment or set a status`,
    );
  }
  if (claimed.pr !== undefined && target.prNumber !== undefined && claimed.pr !== target.prNumber) {
    throw new UserError(
      `${file}: source.prNumber is ${claimed.pr}, but ${target.basis} is for PR #${target.prNumber}; refusing to comment or set a status`,
    );
  }
}
