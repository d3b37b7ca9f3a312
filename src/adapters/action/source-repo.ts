/** Where the Action builds PostgreSQL from: the `repo` input, else the workflow's own repository. */
import { parseRepo } from '../../postgres/builds/source.js';
import type { ActionContext } from './context.js';
import type { ActionInputs } from './inputs.js';

/** The workflow's own repository, as a git URL. */
export function workflowRepoUrl(ctx: Pick<ActionContext, 'serverUrl' | 'owner' | 'repo'>): string {
  return `${ctx.serverUrl}/${ctx.owner}/${ctx.repo}.git`;
}

/** The PostgreSQL source: the `repo` input, else the workflow's own repository. */
export function sourceRepoOf(inputs: Pick<ActionInputs, 'repo'>, ctx: ActionContext) {
  return parseRepo(inputs.repo ?? workflowRepoUrl(ctx), ctx.workspace);
}
