/**
 * A comparison's split over machines as `pgperf plan --shards` prints it (src/run/shards.ts computes it):
 * the plan id, the longest shard against the whole on one machine, then each shard's estimate and cells.
 */

/** What the text needs of a shard plan (src/run/shards.ts ShardPlan). */
export interface ShardPlanView {
  planId: string;
  count: number;
  shards: ReadonlyArray<{
    index: number;
    estimatedS: number;
    cells: ReadonlyArray<{ workload: string; clients: number }>;
  }>;
}

export function renderShardPlan(plan: ShardPlanView): string {
  const total = plan.shards.reduce((t, s) => t + s.estimatedS, 0);
  const longest = Math.max(...plan.shards.map((s) => s.estimatedS));
  const lines = [
    `plan ${plan.planId}: ${plan.count} shards, longest ${minutes(longest)} (${minutes(total)} on one machine)`,
  ];
  for (const s of plan.shards) {
    const cells = s.cells.map((c) => `${c.workload}@${c.clients}`).join(', ');
    lines.push(`  shard ${s.index}/${plan.count}  ${minutes(s.estimatedS).padStart(8)}  ${cells}`);
  }
  return `${lines.join('\n')}\n`;
}

const minutes = (s: number) => `${(s / 60).toFixed(1)} min`;
