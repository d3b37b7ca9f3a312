/**
 * Consolidation of a sharded comparison: the shards' results (one per matrix job) are checked to belong to
 * the same comparison (plan id, shard count, arms and their commits), grouped by machine class (the
 * environment fingerprint), and merged per class into one results document, so that Holm runs across every
 * cell of a class and the report is one. A missing or failed shard is named, its cells stay in the plan
 * with no data (inconclusive), and the class's status says the data is incomplete: never silently dropped.
 */
import { environmentFingerprint } from '../env/fingerprint.js';
import { cellId, type RunResult } from '../results/types.js';
import { UserError } from '../util/errors.js';
import type { ShardInfo } from './shards.js';

export interface ShardFile {
  file: string;
  result: RunResult;
}

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

export function consolidateShards(files: readonly ShardFile[]): Consolidation {
  if (files.length === 0) throw new UserError('consolidate: no results files given');
  const first = files[0]!;
  const shardOf = (f: ShardFile): ShardInfo => {
    const shard = f.result.plan.shard;
    if (!shard) throw new UserError(`${f.file}: not a shard (no plan.shard); run it with --shard I/N`);
    return shard;
  };
  const ref = shardOf(first);
  const armsOf = (r: RunResult) =>
    r.arms
      .map(
        (a) =>
          `${a.label}=${a.build?.sha ?? (a.label === 'base' ? r.source?.base?.sha : a.label === 'head' ? r.source?.head?.sha : undefined) ?? a.serverVersion}`,
      )
      .join(', ');
  for (const f of files.slice(1)) {
    const s = shardOf(f);
    if (s.planId !== ref.planId || s.count !== ref.count) {
      throw new UserError(
        `${f.file}: plan ${s.planId} (${s.count} shards), but ${first.file} is plan ${ref.planId} (${ref.count} shards): the shards belong to different comparisons`,
      );
    }
    if (armsOf(f.result) !== armsOf(first.result)) {
      throw new UserError(
        `${f.file}: arms ${armsOf(f.result)}, but ${first.file} has ${armsOf(first.result)}: the shards compare different builds`,
      );
    }
  }
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
  const byIndex = new Map<number, ShardFile>();
  for (const f of group) {
    const index = f.result.plan.shard!.index;
    const other = byIndex.get(index);
    if (other)
      throw new UserError(
        `${f.file} and ${other.file} are both shard ${index}/${ref.count} of machine class ${fingerprint}`,
      );
    byIndex.set(index, f);
  }
  const present = [...byIndex.keys()].sort((a, b) => a - b);
  const missing = Array.from({ length: ref.count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  const failed = present.filter((i) => byIndex.get(i)!.result.status !== 'complete');
  const docs = present.map((i) => byIndex.get(i)!.result);
  const base = docs[0]!;
  const covered = new Set(docs.flatMap((d) => d.plan.cells.map(cellId)));
  const lost = ref.allCells.filter((c) => !covered.has(cellId(c))).map(cellId);
  // Shards of one plan often warn alike (the same design): each warning once.
  const warnings = [...new Set(docs.flatMap((d) => d.warnings))];
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
  const result: RunResult = {
    ...base,
    status: incomplete ? 'failed' : 'complete',
    ...(incomplete
      ? {
          stopReason: `incomplete consolidation: ${[missing.length ? `missing shard(s) ${missing.join(', ')}` : '', failed.length ? `failed shard(s) ${failed.join(', ')}` : ''].filter(Boolean).join('; ')}`,
        }
      : {}),
    workloads: Object.assign({}, ...docs.map((d) => d.workloads)) as RunResult['workloads'],
    plan: {
      ...base.plan,
      rounds: Math.max(...docs.map((d) => d.plan.rounds)),
      cells: ref.allCells,
      executed: docs.flatMap((d) => d.plan.executed),
      shard: { ...ref, index: 0 },
    },
    samples: docs.flatMap((d) => d.samples),
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
