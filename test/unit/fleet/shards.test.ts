import { describe, expect, it } from 'vitest';
import { workloadSchema } from '../../../src/drivers/workload.js';
import { parseShardSpec, planShards, workloadsOfShard } from '../../../src/run/shards.js';
import { cellId } from '../../../src/core/results/result-types.js';

const workload = (name: string, clients: number[], duration = 60) =>
  workloadSchema.parse({ name, tool: 'pgbench', builtin: 'select-only', clients, duration, rounds: 10 });
const sweep = [workload('select-only', [1, 2, 4, 8, 16, 32, 64]), workload('tpcb-like', [1, 8, 64], 120)];

describe('planShards', () => {
  it('puts every cell in exactly one shard, keeps cells whole, and balances the estimated time', () => {
    const plan = planShards(sweep, 3);
    const all = plan.shards.flatMap((s) => s.cells.map(cellId));
    expect(all.sort()).toEqual(sweep.flatMap((w) => w.clients.map((c) => `${w.name}@${c}`)).sort());
    const times = plan.shards.map((s) => s.estimatedS);
    // LPT: the longest shard is within one cell's time of the shortest.
    const longestCell = Math.max(...plan.shards.flatMap((s) => s.cells.map((c) => c.estimatedS)));
    expect(Math.max(...times) - Math.min(...times)).toBeLessThanOrEqual(longestCell);
  });

  it('is deterministic: the same workloads give the same split and plan id; other rounds another id', () => {
    expect(planShards(sweep, 3)).toEqual(planShards(sweep, 3));
    const other = sweep.map((w) => ({ ...w, rounds: 12 }));
    expect(planShards(other, 3).planId).not.toBe(planShards(sweep, 3).planId);
    expect(planShards(sweep, 2).planId).not.toBe(planShards(sweep, 3).planId);
  });

  it("restricts the workloads to a shard's cells", () => {
    const plan = planShards(sweep, 3);
    const parts = plan.shards.map((s) => workloadsOfShard(sweep, s));
    const cells = parts.flat().flatMap((w) => w.clients.map((c) => `${w.name}@${c}`));
    expect(cells).toHaveLength(10);
    expect(new Set(cells).size).toBe(10);
  });

  it('refuses impossible splits and bad shard specs, naming the value', () => {
    expect(() => planShards(sweep, 11)).toThrow('11 shards for 10 cells: a shard needs at least one cell');
    expect(() => planShards(sweep, 0)).toThrow('shards must be a whole number >= 1, got 0');
    expect(parseShardSpec('2/3', '--shard')).toEqual({ index: 2, count: 3 });
    for (const bad of ['4/3', '0/3', '2', 'a/b', '1/0']) {
      expect(() => parseShardSpec(bad, '--shard')).toThrow(
        `--shard must be I/N with 1 <= I <= N (e.g. 2/3), got '${bad}'`,
      );
    }
  });
});
