/**
 * Planner memory of one statement: `EXPLAIN (MEMORY)` (PostgreSQL 17+) prints, under "Planning:", what the
 * planner's memory context used and allocated ("Memory: used=28kB  allocated=32kB"). Taken with the plans
 * (src/run/counted/plan-phase.ts); older servers refuse the option, and the plans are then taken without it.
 */

export interface PlannerMemory {
  usedBytes: number;
  allocatedBytes: number;
}

/** The error an older server gives for the option (its message, as the plan capture quotes it). */
export const NO_EXPLAIN_MEMORY = /unrecognized EXPLAIN option "memory"/;

/**
 * The planning memory of EXPLAIN (MEMORY) output; undefined when it has none.
 *
 * @example parsePlannerMemory('Seq Scan on t\nPlanning:\n  Memory: used=7kB  allocated=8kB') ===
 *   { usedBytes: 7168, allocatedBytes: 8192 }
 */
export function parsePlannerMemory(text: string): PlannerMemory | undefined {
  const lines = text.split(/\r?\n/);
  const planning = lines.findIndex((l) => /^\s*Planning:\s*$/.test(l));
  if (planning < 0) return undefined;
  for (const line of lines.slice(planning + 1)) {
    const m = /^\s*Memory: used=(\d+)kB\s+allocated=(\d+)kB\s*$/.exec(line);
    if (m) return { usedBytes: Number(m[1]) * 1024, allocatedBytes: Number(m[2]) * 1024 };
  }
  return undefined;
}
