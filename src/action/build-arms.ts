/** The action's build step: base and head built from source (head with the patches), as the two arms. */
import path from 'node:path';
import { buildComparison, type BuildDeps } from '../build/build.js';
import { parseRepo, readPatches } from '../build/source.js';
import type { ArmSpec } from '../runner/run-loop.js';
import type { ActionContext, Commits } from './context.js';
import type { ActionInputs } from './inputs.js';

export interface BuildArmsOptions {
  /** Resolved cache directory (the input, or the default for this user). */
  cacheDir: string;
  deps: BuildDeps;
}

export function buildArmsFromSource(ctx: ActionContext, options: BuildArmsOptions) {
  return async (commits: Commits, inputs: ActionInputs): Promise<ArmSpec[]> => {
    // The workflow's own repository unless another source is named.
    const repo = parseRepo(inputs.repo ?? `${ctx.serverUrl}/${ctx.owner}/${ctx.repo}.git`, ctx.workspace);
    const headPatches = await readPatches(
      inputs.patches.map((p) => path.resolve(ctx.workspace, p)),
      "input 'patches'",
    );
    const built = await buildComparison(
      {
        repo,
        baseRef: commits.base.sha ?? commits.base.ref!,
        headRef: commits.head.sha ?? commits.head.ref!,
        mergeBase: false, // already chosen (PR: the merge-base from the API), and recorded in the results
        basePatches: [],
        headPatches,
        extraOptions: inputs.buildOptions,
        cacheDir: options.cacheDir,
      },
      options.deps,
    );
    return [
      { label: 'base', binDir: built.base.binDir, settings: {}, build: { ...built.base.record } },
      { label: 'head', binDir: built.head.binDir, settings: {}, build: { ...built.head.record } },
    ];
  };
}
