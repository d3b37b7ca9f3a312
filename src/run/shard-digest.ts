/**
 * What a shard's results document carries so that consolidation can check it: the plan's identity (a hash
 * over the plan id, the shard count, every cell and the split of the cells over the shards, the same in
 * every shard of one plan) and a digest of its samples, rewritten with every write of the document.
 *
 * Both are plain SHA-256 over canonical JSON (keys sorted, see canonicalJson): they catch a shard file that
 * was edited, corrupted, truncated or put together from other files, not one forged by someone who also
 * recomputes them (that needs a signature, which a runner without a key cannot make).
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../machine/fingerprint.js';
import type { ResultSink } from './sink.js';
import type { CellKey, RunResult, Sample } from '../core/results/result-types.js';
import type { ShardInfo } from '../core/results/result-types.js';

/** A cell as the identity sees it: workload and clients only (a plan's cells also carry estimates). */
function bareCell(c: CellKey): CellKey {
  return { workload: c.workload, clients: c.clients };
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The plan hash: SHA-256 (hex) of the canonical JSON of {planId, count, allCells, assignment}. Shards of one
 * plan (the same workloads, rounds, duration and shard count) have the same hash. O(cells).
 *
 * @example planHashOf({ planId: '0123456789abcdef', count: 1, allCells: [c], assignment: [[c]] }) // 64 hex digits
 */
export function planHashOf(plan: {
  planId: string;
  count: number;
  allCells: readonly CellKey[];
  assignment: ReadonlyArray<readonly CellKey[]>;
}): string {
  return sha256Hex(
    canonicalJson({
      planId: plan.planId,
      count: plan.count,
      allCells: plan.allCells.map(bareCell),
      assignment: plan.assignment.map((cells) => cells.map(bareCell)),
    }),
  );
}

/**
 * The samples digest: SHA-256 (hex) of the SHA-256 of each sample's canonical JSON, one per line in sample
 * order. Equal for the samples in memory and as read back from the file or a store (JSON round trips keep
 * every value canonicalJson writes). `cache` (per sample object) makes the rewrite after every measured run
 * hash only the new sample. O(size of the samples).
 */
export function samplesDigestOf(samples: readonly Sample[], cache?: WeakMap<object, string>): string {
  const lines = samples.map((s) => {
    const cached = cache?.get(s);
    if (cached !== undefined) return cached;
    const hash = sha256Hex(canonicalJson(s));
    cache?.set(s, hash);
    return hash;
  });
  return sha256Hex(lines.join('\n'));
}

/** Records the samples digest of a shard's document in place (documents that are no shard are left alone). */
export function sealShard(result: RunResult, cache?: WeakMap<object, string>): void {
  const shard: ShardInfo | undefined = result.plan.shard;
  if (!shard || shard.index === 0) return;
  shard.samplesDigest = samplesDigestOf(result.samples, cache);
}

/** A sink that seals a shard's document (its samples digest) before every write of `sink`. */
export function sealingSink(sink: ResultSink): ResultSink {
  const cache = new WeakMap<object, string>();
  return {
    description: sink.description,
    update: (result) => {
      sealShard(result, cache);
      return sink.update(result);
    },
    finish: (result) => {
      sealShard(result, cache);
      return sink.finish(result);
    },
    ...(sink.finishNow
      ? {
          finishNow: (result: Parameters<ResultSink['update']>[0]) => {
            sealShard(result, cache);
            return sink.finishNow!(result);
          },
        }
      : {}),
  };
}
