import type { Workload } from '../../drivers/workload.js';
import { UserError } from '../../core/util/errors.js';

/** Measurements per commit while the verdict is inconclusive, when not given. */
export const DEFAULT_TRIES = 2;

/**
 * The workload narrowed to the one client count a bisection measures; `field` names where the count is
 * given (`--clients`, input 'clients') in the error when none is and the workload has several.
 */
export function oneCell(workload: Workload, clients: number | undefined, field = '--clients'): Workload {
  if (clients !== undefined) return { ...workload, clients: [clients] };
  if (workload.clients.length !== 1) {
    throw new UserError(
      `${field}: workload ${workload.name} measures clients ${workload.clients.join(', ')}; a bisection measures one: give ${field} N`,
    );
  }
  return workload;
}
