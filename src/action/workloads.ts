import path from 'node:path';
import { loadWorkloadFile } from '../drivers/load-workload.js';
import { shippedWorkloadFile } from '../config/shipped-workloads.js';
import type { Workload } from '../drivers/workload.js';
import type { ActionContext } from './context.js';
import type { ActionInputs } from './inputs.js';

/** The workloads of the input 'workloads' (default select-only). */
export async function loadInputWorkloads(
  inputs: Pick<ActionInputs, 'workloads'>,
  ctx: ActionContext,
  actionDir: string,
): Promise<Workload[]> {
  const workloads: Workload[] = [];
  for (const w of inputs.workloads.length ? inputs.workloads : ['select-only']) {
    workloads.push(await loadWorkloadFile(workloadPath(w, ctx.workspace, actionDir)));
  }
  return workloads;
}

/** A bare name (select-only) is a workload shipped with the action; anything else a path in the workspace. */
export function workloadPath(name: string, workspace: string, actionDir: string): string {
  if (/^[A-Za-z0-9._-]+$/.test(name) && !name.endsWith('.yml') && !name.endsWith('.yaml')) {
    return shippedWorkloadFile(name, path.join(actionDir, 'workloads'), "input 'workloads'");
  }
  return path.resolve(workspace, name);
}
