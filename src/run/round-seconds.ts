import type { Workload } from '../drivers/workload.js';

/** Seconds of one round with every cell open: each cell runs every arm once (duration overrides the workloads'). */
export function roundSeconds(workloads: readonly Workload[], arms: number, durationS?: number): number {
  return workloads.reduce((s, w) => s + w.clients.length * arms * (durationS ?? w.duration), 0);
}
