import path from 'node:path';
import { loadWorkloads } from '../../drivers/load-workload.js';
import { resolveWorkloadFile } from '../../drivers/shipped-workloads.js';
import type { Workload } from '../../drivers/workload.js';
import { resolveInstructions } from '../../drivers/common/workload-fields.js';
import type { ActionContext } from './context.js';
import type { ActionInputs } from './inputs.js';

/** The workloads of the input 'workloads' (default select-only); input 'instructions' turns the mode on in each. */
export async function loadInputWorkloads(
  inputs: Pick<ActionInputs, 'workloads'> & Partial<Pick<ActionInputs, 'instructions'>>,
  ctx: ActionContext,
  actionDir: string,
): Promise<Workload[]> {
  const workloads: Workload[] = [];
  for (const w of inputs.workloads.length ? inputs.workloads : ['select-only']) {
    // A workload with a settings matrix is one workload per combination (settings-matrix.ts).
    for (const workload of await loadWorkloads(w, inputLookup(ctx.workspace, actionDir))) {
      if (inputs.instructions) workload.instructions ??= resolveInstructions(true);
      workloads.push(workload);
    }
  }
  return workloads;
}

/**
 * The file of one entry of 'workloads': a file in the workspace, else a workload shipped with the action
 * (select-only), the same rule as the CLI's --workload (src/drivers/shipped-workloads.ts).
 */
export function workloadPath(name: string, workspace: string, actionDir: string): string {
  return resolveWorkloadFile(name, inputLookup(workspace, actionDir));
}

function inputLookup(workspace: string, actionDir: string) {
  return { what: "input 'workloads'", baseDir: workspace, workloadsDir: path.join(actionDir, 'workloads') };
}
