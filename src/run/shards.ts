/**
 * Splitting a comparison over machines: a shard is a set of whole cells (a cell is never split, so base and
 * head of a cell stay interleaved on one machine), balanced by estimated time with the longest-processing-
 * time rule. Deterministic from the workloads alone (no seed, no clock), so every job of a matrix computes
 * the same split and the same plan id, which consolidation later checks.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, workloadHash } from '../machine/fingerprint.js';
import { cellId, type CellKey } from '../core/results/result-types.js';
import { planHashOf } from './shard-digest.js';
import { roundsOf } from '../drivers/common/workload-fields.js';
import type { ShardInfo } from '../core/results/result-types.js';
export type { ShardInfo };

export interface ShardCell extends CellKey {
  /** Estimated seconds for this cell over all arms: rounds x (duration + warm-up share) x arms. */
  estimatedS: number;
}

export interface Shard {
  /** 1-based. */
  index: number;
  cells: ShardCell[];
  estimatedS: number;
}

export interface ShardPlan {
  /** Identifies the comparison's split: the workloads' definitions, rounds, cells and the shard count. */
  planId: string;
  count: number;
  shards: Shard[];
}

/** What a split needs of a workload (any tool's): its cells and how long each takes. */
export interface ShardableWorkload {
  name: string;
  clients: number[];
  /** Its own rounds; DEFAULT_ROUNDS when unset (a shard runs fixed rounds). */
  rounds?: number | undefined;
  duration: number;
  warmup: number;
}

/** Splits the cells of `workloads` into `count` shards of about equal estimated time. */
export function planShards(workloads: readonly ShardableWorkload[], count: number, arms = 2): ShardPlan {
  if (!Number.isInteger(count) || count < 1)
    throw new RangeError(`shards must be a whole number >= 1, got ${count}`);
  const cells: ShardCell[] = workloads.flatMap((w) =>
    w.clients.map((clients) => ({
      workload: w.name,
      clients,
      estimatedS: arms * (roundsOf(w) * w.duration + w.warmup),
    })),
  );
  if (count > cells.length) {
    throw new RangeError(`${count} shards for ${cells.length} cells: a shard needs at least one cell`);
  }
  const shards: Shard[] = Array.from({ length: count }, (_, i) => ({
    index: i + 1,
    cells: [],
    estimatedS: 0,
  }));
  // Longest first, ties by cell id; each to the least loaded shard (lowest index on ties).
  const order = [...cells].sort((a, b) => b.estimatedS - a.estimatedS || cellId(a).localeCompare(cellId(b)));
  for (const cell of order) {
    const target = shards.reduce((best, s) => (s.estimatedS < best.estimatedS ? s : best), shards[0]!);
    target.cells.push(cell);
    target.estimatedS += cell.estimatedS;
  }
  // Declaration order inside a shard, as an unsharded run lists them.
  const position = new Map(cells.map((c, i) => [cellId(c), i]));
  for (const s of shards) s.cells.sort((a, b) => position.get(cellId(a))! - position.get(cellId(b))!);
  const planId = createHash('sha256')
    .update(
      canonicalJson({
        count,
        workloads: workloads.map((w) => ({
          name: w.name,
          hash: workloadHash(w),
          rounds: roundsOf(w),
          clients: w.clients,
        })),
      }),
    )
    .digest('hex')
    .slice(0, 16);
  return { planId, count, shards };
}

/** "2/3" -> {index: 2, count: 3}; what names the flag or input in errors. */
export function parseShardSpec(spec: string, what: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(spec.trim());
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index < 1 || index > count) {
    throw new RangeError(`${what} must be I/N with 1 <= I <= N (e.g. 2/3), got '${spec}'`);
  }
  return { index, count };
}

/** The workloads restricted to one shard's cells (workloads without any are left out). */
export function workloadsOfShard<W extends ShardableWorkload>(workloads: readonly W[], shard: Shard): W[] {
  const mine = new Set(shard.cells.map((c) => cellId(c)));
  return workloads.flatMap((w) => {
    const clients = w.clients.filter((clients) => mine.has(cellId({ workload: w.name, clients })));
    return clients.length ? [{ ...w, clients }] : [];
  });
}

/**
 * Shard `spec` of the split of `workloads` (with the run's rounds/duration overrides, which the plan id
 * covers): the workloads restricted to its cells and the ShardInfo its results record (the plan's identity:
 * plan id, every cell, the split and its hash; the run loop adds the samples digest with every write).
 * @throws RangeError when the shard count does not fit the cells.
 */
export function selectShard<W extends ShardableWorkload>(
  workloads: readonly W[],
  spec: { index: number; count: number },
  overrides: { rounds?: number; duration?: number } = {},
): { workloads: W[]; info: ShardInfo } {
  const effective = workloads.map((w) => ({
    ...w,
    rounds: overrides.rounds ?? w.rounds,
    duration: overrides.duration ?? w.duration,
  }));
  const plan = planShards(effective, spec.count);
  const allCells = effective.flatMap((w) => w.clients.map((clients) => ({ workload: w.name, clients })));
  const assignment = plan.shards.map((s) => s.cells.map(({ workload, clients }) => ({ workload, clients })));
  return {
    workloads: workloadsOfShard(workloads, plan.shards[spec.index - 1]!),
    info: {
      planId: plan.planId,
      index: spec.index,
      count: spec.count,
      allCells,
      assignment,
      planHash: planHashOf({ planId: plan.planId, count: spec.count, allCells, assignment }),
    },
  };
}
