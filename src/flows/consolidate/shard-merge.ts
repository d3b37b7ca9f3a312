/**
 * Consolidation of a sharded comparison: the shards' results (one per matrix job) are checked, each alone
 * (index in range, cells the plan assigns it, samples matching their digest) and together (one plan: id,
 * count, cells and hash; the same arms and commits; no shard, sample or cell twice; verify-shards.ts),
 * grouped by machine class (the environment fingerprint), and merged per class into one results document,
 * so that Holm runs across every cell of a class and the report is one. A missing or failed shard is named,
 * its cells stay in the plan with no data (inconclusive), and the class's status says the data is
 * incomplete: never silently dropped.
 */
import { environmentFingerprint } from '../../machine/fingerprint.js';
import { cellId, type RunResult } from '../../core/results/result-types.js';
import { UserError } from '../../core/util/errors.js';
import { samplesDigestOf } from '../../run/shard-digest.js';
import { mergedRecords } from './merge-records.js';
import type { ShardInfo } from '../../run/shards.js';
import {
  checkClassShards,
  checkOneComparison,
  checkShardDocument,
  isVerifiable,
  type ShardFile,
} from './verify-shards.js';

export type { ShardFile };

export interface MachineClass {
  fingerprint: string;
  facts: Record<string, string>;
  /** The merged document (status 'complete' only when every shard is there and complete). */
  result: RunResult;
  present: number[];
  missing: number[];
  failed: number[];
}

export interface Consolidation {
  planId: string;
  count: number;
  classes: MachineClass[];
}

/**
 * Checks the shards (src/flows/consolidate/verify-shards.ts: each alone, together, per machine class) and merges each
 * machine class into one document.
 * @throws UserError naming the file that is wrong and what is wrong with it.
 */
export function consolidateShards(files: readonly ShardFile[]): Consolidation {
  if (files.length === 0) throw new UserError('consolidate: no results files given');
  const shards = files.map(checkShardDocument);
  checkOneComparison(files, shards);
  const ref = shards[0]!;
  const groups = new Map<string, ShardFile[]>();
  for (const f of files) {
    const id = machineClassOf(f.result);
    groups.set(id, [...(groups.get(id) ?? []), f]);
  }
  const classes = [...groups.entries()].map(([fingerprint, group]) => mergeClass(fingerprint, group, ref));
  return { planId: ref.planId, count: ref.count, classes };
}

/** The machine class of a shard: its environment fingerprint id (recorded, else computed). */
export function machineClassOf(result: RunResult): string {
  return result.fingerprint?.id ?? environmentFingerprint(result).id;
}

function mergeClass(fingerprint: string, group: ShardFile[], ref: ShardInfo): MachineClass {
  const byIndex = checkClassShards(group, fingerprint);
  const present = [...byIndex.keys()].sort((a, b) => a - b);
  const missing = Array.from({ length: ref.count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  const failed = present.filter((i) => byIndex.get(i)!.result.status !== 'complete');
  const docs = present.map((i) => byIndex.get(i)!.result);
  const base = docs[0]!;
  const covered = new Set(docs.flatMap((d) => d.plan.cells.map(cellId)));
  const lost = ref.allCells.filter((c) => !covered.has(cellId(c))).map(cellId);
  // Shards of one plan often warn alike (the same design): each warning once.
  const warnings = [...new Set(docs.flatMap((d) => d.warnings))];
  if (!isVerifiable(ref)) {
    warnings.push(
      'the shards carry no plan hash and samples digest (an older pgperf wrote them): their indexes, cells and samples were checked against the plan, their split and their samples could not be verified',
    );
  }
  if (missing.length) {
    warnings.unshift(
      `shard${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${ref.count} missing: no data for ${lost.join(', ')}`,
    );
  }
  for (const i of failed) {
    const d = byIndex.get(i)!;
    warnings.unshift(
      `shard ${i} of ${ref.count} (${d.file}) is '${d.result.status}'${d.result.stopReason ? `: ${d.result.stopReason}` : ''}`,
    );
  }
  const incomplete = missing.length > 0 || failed.length > 0;
  const samples = docs.flatMap((d) => d.samples);
  const result: RunResult = {
    ...base,
    status: incomplete ? 'failed' : 'complete',
    ...(incomplete
      ? {
          stopReason: `incomplete consolidation: ${[missing.length ? `missing shard(s) ${missing.join(', ')}` : '', failed.length ? `failed shard(s) ${failed.join(', ')}` : ''].filter(Boolean).join('; ')}`,
        }
      : {}),
    workloads: Object.assign({}, ...docs.map((d) => d.workloads)) as RunResult['workloads'],
    ...(docs.some((d) => d.workloadScripts)
      ? {
          workloadScripts: Object.assign({}, ...docs.map((d) => d.workloadScripts ?? {})) as Record<
            string,
            string
          >,
        }
      : {}),
    ...mergedRecords(docs),
    plan: {
      ...base.plan,
      rounds: Math.max(...docs.map((d) => d.plan.rounds)),
      cells: ref.allCells,
      executed: docs.flatMap((d) => d.plan.executed),
      shard: mergedShard(ref, samples),
    },
    samples,
    warnings,
  };
  return {
    fingerprint,
    facts: base.fingerprint?.facts ?? environmentFingerprint(base).facts,
    result,
    present,
    missing,
    failed,
  };
}

/** plan.shard of a merged document: index 0, the plan's identity kept, the digest of the merged samples. */
function mergedShard(ref: ShardInfo, samples: RunResult['samples']): ShardInfo {
  const { samplesDigest: _shards, ...identity } = ref;
  return {
    ...identity,
    index: 0,
    ...(isVerifiable(ref) ? { samplesDigest: samplesDigestOf(samples) } : {}),
  };
}
