/**
 * What results.json records of the plan phase (field `plans`, docs/plans.md): per workload with `plans`
 * and per arm, the plan of every statement the workload runs (`EXPLAIN (COSTS OFF)`, normalised), and,
 * where the arm's install has pg_stat_statements, each statement's calls, execution time and shared blocks
 * over a short fixed-transaction pgbench run at 1 client. A plan that differs between base and a head is a
 * noise-free explanation of a throughput change; the report says so (core/report/evidence/plan-section.ts).
 */

/** One statement of a workload, as its script writes it, and the SQL that was explained. */
export interface PlanStatement {
  workload: string;
  /** The statement as written (pgbench variables kept, whitespace collapsed): its name in reports. */
  statement: string;
  /** What was sent to EXPLAIN: the variables replaced by representative values; absent for statements
   * that have no plan (BEGIN, END, SET, ...). */
  explained?: string;
}

/** The plan of one statement on one arm, or why there is none. */
export interface StatementPlan {
  workload: string;
  arm: string;
  statement: string;
  /** EXPLAIN (COSTS OFF) output, normalised (normalisePlan): equal text means the same plan. */
  plan?: string;
  /** Why EXPLAIN failed (the server's message). */
  error?: string;
  /** What the planner's memory context used and allocated, bytes (EXPLAIN (MEMORY), PostgreSQL 17+). */
  plannerMemory?: { usedBytes: number; allocatedBytes: number };
}

/** pg_stat_statements' counters of one statement on one arm over the counted run. */
export interface StatementStats {
  workload: string;
  arm: string;
  statement: string;
  calls: number;
  /** Total execution time of the calls, ms. */
  totalTimeMs: number;
  sharedBlksHit: number;
  sharedBlksRead: number;
  /** Transactions of the counted run (the divisor of the per-transaction figures). */
  transactions: number;
}

export interface PlansRecord {
  /** The arms in the run's order; arms[0] is the base the others are compared with. */
  arms: string[];
  /** Wall time of the phase, seconds. */
  wallS: number;
  statements: PlanStatement[];
  plans: StatementPlan[];
  /** Empty where no arm's install had pg_stat_statements (the notes say so). */
  stats: StatementStats[];
  /** Workloads (or one arm of one) whose plans could not be taken, and why. */
  failures: Array<{ workload: string; arm?: string; reason: string }>;
  /** What the report should say (an arm without pg_stat_statements, ...). */
  notes: string[];
}

export function emptyPlansRecord(arms: readonly string[]): PlansRecord {
  return { arms: [...arms], wallS: 0, statements: [], plans: [], stats: [], failures: [], notes: [] };
}

/** Milliseconds per call, or null without calls. */
export function timePerCall(s: Pick<StatementStats, 'calls' | 'totalTimeMs'>): number | null {
  return s.calls > 0 ? s.totalTimeMs / s.calls : null;
}

/** Shared blocks touched (hit + read) per call, or null without calls. */
export function blocksPerCall(
  s: Pick<StatementStats, 'calls' | 'sharedBlksHit' | 'sharedBlksRead'>,
): number | null {
  return s.calls > 0 ? (s.sharedBlksHit + s.sharedBlksRead) / s.calls : null;
}

/** Calls per transaction of the counted run, or null without transactions. */
export function callsPerTransaction(s: Pick<StatementStats, 'calls' | 'transactions'>): number | null {
  return s.transactions > 0 ? s.calls / s.transactions : null;
}

/**
 * True when a statement of `workload` has a plan on both base (arms[0]) and `head` and the two differ: a
 * head whose plans changed is never passed on steady evidence (src/core/compare/evidence/steady-evidence.ts).
 */
export function planChanged(record: PlansRecord | undefined, workload: string, head: string): boolean {
  const base = record?.arms[0];
  if (!record || base === undefined) return false;
  const planOf = (arm: string, statement: string) =>
    record.plans.find((p) => p.workload === workload && p.arm === arm && p.statement === statement)?.plan;
  return record.statements.some((s) => {
    if (s.workload !== workload || s.explained === undefined) return false;
    const b = planOf(base, s.statement);
    const h = planOf(head, s.statement);
    return b !== undefined && h !== undefined && b !== h;
  });
}
