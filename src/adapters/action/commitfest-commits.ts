/**
 * The Action's `commitfest-entry`: head is the entry's cfbot branch, base its merge-base with `base-ref`
 * (default master), both built from `repo` (default cfbot's mirror) whatever the event (a schedule has no
 * pull request to take them from).
 */
import type { ComparisonRequest } from '../../postgres/builds/build-pair.js';
import { CFBOT_REPO, commitfestRefs } from '../../postgres/builds/commitfest.js';
import { parseRepo } from '../../postgres/builds/source.js';
import type { CommitfestEntry } from '../../core/results/types.js';
import type { ActionContext, Commits } from './context.js';
import type { ActionInputs } from './inputs.js';

/** The commits of `entry`: head its branch, base the merge-base chosen when base is built. */
export function commitfestCommits(
  entry: CommitfestEntry,
  inputs: Pick<ActionInputs, 'baseRef' | 'prNumber'>,
): Commits {
  const refs = commitfestRefs(entry, inputs.baseRef);
  return {
    base: { label: 'base', ref: refs.baseRef, chosenBy: `merge-base of ${refs.baseRef} and ${refs.headRef}` },
    head: { label: 'head', ref: refs.headRef, chosenBy: `commitfest entry ${entry.id}` },
    ...(inputs.prNumber !== undefined ? { prNumber: inputs.prNumber } : {}),
  };
}

/** `request` (built from the commits above) from the entry's repository, base the merge-base. */
export function commitfestBuild(
  request: ComparisonRequest,
  inputs: Pick<ActionInputs, 'repo'>,
  ctx: Pick<ActionContext, 'workspace'>,
): ComparisonRequest {
  return { ...request, repo: parseRepo(inputs.repo ?? CFBOT_REPO, ctx.workspace), mergeBase: true };
}
