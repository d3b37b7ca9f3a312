/**
 * The commits a comparison measures as chosen, and how the log says them: a commitfest entry's (head its
 * cfbot branch, base the merge-base chosen when base is built), whatever the event (a schedule has no pull
 * request to take them from).
 */
import { commitfestRefs } from '../../../postgres/builds/commitfest.js';
import type { CommitfestEntry } from '../../../core/results/result-types.js';
import { UserError, errorMessage } from '../../../core/util/errors.js';
import type { GitHubApi } from '../../../github/api.js';

/** One commit of a comparison: its ref and/or sha, and how it was chosen (said in the report). */
export interface CommitChoice {
  label: 'base' | 'head';
  ref?: string;
  sha?: string;
  /** How the commit was chosen, said in the report. */
  chosenBy: string;
}

/** Base and head as chosen, and the PR they are of, when there is one. */
export interface Commits {
  base: CommitChoice;
  head: CommitChoice;
  prNumber?: number;
}

/** What the payload of a pull request's event says of it (the adapter checks it is all there). */
export interface PullRequestFacts {
  number: number;
  head: { sha: string; ref: string };
  base: { sha: string; ref: string };
}

/** The Action inputs that choose commits (the messages name them: only the Action chooses commits so). */
export interface CommitInputs {
  prNumber?: number | undefined;
  baseRef?: string | undefined;
  headRef?: string | undefined;
  baseBinDir?: string | undefined;
  headBinDir?: string | undefined;
}

/**
 * Pull requests: base = merge-base of the PR head and the base branch, head = the PR head.
 * Other events (push, schedule, workflow_dispatch, /perf comments): the explicit base-ref and head-ref.
 * Inputs always win over the event.
 */
export async function chooseCommitsOf(
  event: { eventName: string; pullRequest: PullRequestFacts | undefined },
  inputs: CommitInputs,
  api: Pick<GitHubApi, 'mergeBase'> | undefined,
): Promise<Commits> {
  const pr = event.pullRequest;
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
    let sha: string;
    try {
      sha = await api.mergeBase(pr.base.sha, head.sha ?? pr.head.sha);
    } catch (e) {
      throw new UserError(
        `cannot look up the merge-base of ${pr.base.ref} and the PR head through the GitHub API (${errorMessage(e)}); ` +
          "set the input 'base-ref' to choose the base commit yourself",
      );
    }
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
    `the '${event.eventName}' event has no pull request: set the inputs 'base-ref' and 'head-ref' (or 'base-bin-dir' and 'head-bin-dir')`,
  );
}

/** The commits of `entry`: head its branch, base the merge-base with `baseRef` (default master). */
export function commitfestCommits(
  entry: CommitfestEntry,
  baseRef: string | undefined,
): { base: CommitChoice; head: CommitChoice } {
  const refs = commitfestRefs(entry, baseRef);
  return {
    base: { label: 'base', ref: refs.baseRef, chosenBy: `merge-base of ${refs.baseRef} and ${refs.headRef}` },
    head: { label: 'head', ref: refs.headRef, chosenBy: `commitfest entry ${entry.id}` },
  };
}

/** "master @ 0123456789ab (input base-ref)": the commit as the log names it. */
export function describeCommit(c: Omit<CommitChoice, 'label'>): string {
  return [c.ref, c.sha?.slice(0, 12)].filter(Boolean).join(' @ ') + ` (${c.chosenBy})`;
}
