/**
 * Stored runs with their workload definitions as this pgperf reads a workload: every field a later
 * version added, with its default, where an older document has none. A definition is compared as a whole
 * (core/results/workload-definition.ts), so without this every series would seem to change its workload the
 * night pgperf gained a field. A definition this version cannot read (a field since removed) is kept as
 * recorded, and so differs: what cannot be read as the same is not called the same.
 */
import { workloadSchema } from '../../drivers/workload.js';
import type { RunResult } from '../../core/results/result-types.js';

/** The run with each of its workload definitions read by the current schema (defaults filled in). */
export function withCurrentDefinitions<T extends RunResult>(run: T): T {
  const workloads = run.workloads ?? {};
  return {
    ...run,
    workloads: Object.fromEntries(
      Object.entries(workloads).map(([name, spec]) => {
        const parsed = workloadSchema.safeParse(spec);
        return [name, parsed.success ? parsed.data : spec];
      }),
    ),
  };
}
