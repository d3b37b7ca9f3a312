/** What the action builds: base and head from source (head with the patches), as a build-stage request. */
import path from 'node:path';
import type { ComparisonRequest } from '../../postgres/builds/build-pair.js';
import { readPatches } from '../../postgres/builds/patches.js';
import { parseRepo } from '../../postgres/builds/source.js';
import type { ActionContext, Commits } from './context.js';
import type { ActionInputs } from './inputs.js';

/** The PostgreSQL source: the `repo` input, else the workflow's own repository. */
export function sourceRepoOf(inputs: Pick<ActionInputs, 'repo'>, ctx: ActionContext) {
  return parseRepo(inputs.repo ?? `${ctx.serverUrl}/${ctx.owner}/${ctx.repo}.git`, ctx.workspace);
}

export async function buildRequestFor(
  ctx: ActionContext,
  commits: Commits,
  inputs: ActionInputs,
  cacheDir: string,
): Promise<ComparisonRequest> {
  return {
    repo: sourceRepoOf(inputs, ctx),
    baseRef: commits.base.sha ?? commits.base.ref!,
    headRef: commits.head.sha ?? commits.head.ref!,
    mergeBase: false, // already chosen (PR: the merge-base from the API), and recorded in the results
    basePatches: [],
    headPatches: await readPatches(
      inputs.patches.map((p) => path.resolve(ctx.workspace, p)),
      "input 'patches'",
    ),
    extraOptions: inputs.buildOptions,
    cacheDir,
  };
}
