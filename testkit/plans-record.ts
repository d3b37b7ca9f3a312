/**
 * The plans a real run took (PostgreSQL 15, select-only, head with enable_indexscan and enable_bitmapscan
 * off): base's index scan became a sequential scan in head, and its cost per call moved with it.
 */
import type { PlansRecord } from '../src/core/results/plans.js';

export const SELECT = 'SELECT abalance FROM pgbench_accounts WHERE aid = :aid';
export const INDEX_PLAN =
  'Index Scan using pgbench_accounts_pkey on pgbench_accounts\n  Index Cond: (aid = 1)';
export const SEQ_PLAN = 'Seq Scan on pgbench_accounts\n  Filter: (aid = 1)';

/** One statement of `workload`, base's plan the index scan, every other arm's `headPlan`. */
export function plansRecord(workload: string, headPlan = SEQ_PLAN, arms = ['base', 'head']): PlansRecord {
  return {
    arms,
    wallS: 14.3,
    statements: [{ workload, statement: SELECT, explained: SELECT.replace(':aid', '1') }],
    plans: arms.map((arm, i) => ({
      workload,
      arm,
      statement: SELECT,
      plan: i === 0 ? INDEX_PLAN : headPlan,
    })),
    stats: arms.map((arm, i) => ({
      workload,
      arm,
      statement: SELECT,
      calls: 500,
      totalTimeMs: i === 0 ? 4.3273 : 4896.49,
      sharedBlksHit: i === 0 ? 1363 : 820000,
      sharedBlksRead: i === 0 ? 137 : 0,
      transactions: 500,
    })),
    failures: [],
    notes: [],
  };
}
