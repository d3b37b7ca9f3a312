import type { ActionContext } from './context.js';
import type { ActionInputs } from './inputs.js';

/** Where commits link: the workflow's repository, or `repo` when it is a GitHub URL. */
export function repoUrlOf(inputs: Pick<ActionInputs, 'repo'>, ctx: ActionContext): string | undefined {
  if (inputs.repo === undefined) return `${ctx.serverUrl}/${ctx.owner}/${ctx.repo}`;
  const m = /^(https:\/\/github\.com\/[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+?)(\.git)?\/?$/.exec(inputs.repo);
  return m ? m[1] : undefined;
}
