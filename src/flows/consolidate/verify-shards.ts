/**
 * The checks a shard's results document must pass before consolidation merges it, each a UserError naming
 * the file (or store run) and what is wrong:
 *
 * - alone (checkShardDocument): a shard index within 1..count, a count the plan's cells can fill, the plan's
 *   identity consistent (the split covers every cell once and matches the plan hash), the samples matching
 *   their digest, and the shard's cells those the plan assigns to it;
 * - together (checkOneComparison): one plan id, count, plan hash and cell list, the same arms and commits;
 * - per machine class (checkClassShards): no shard twice, no sample twice, no cell in two shards, and every
 *   sample of one of its shard's cells.
 *
 * Documents written before the plan hash and the samples digest existed (no `planHash`) pass every check
 * that needs neither; a mix of both kinds in one consolidation is refused, so that dropping the fields from
 * one file does not skip its checks.
 */
import { canonicalJson } from '../../machine/fingerprint.js';
import { sampleIdentity, sampleKey } from '../../core/results/check-results.js';
import { cellId, type CellKey, type RunResult } from '../../core/results/result-types.js';
import { UserError } from '../../core/util/errors.js';
import { planHashOf, samplesDigestOf } from '../../run/shard-digest.js';
import type { ShardInfo } from '../../run/shards.js';

export interface ShardFile {
  /** What names the document in errors: its path, or "store run ID". */
  file: string;
  result: RunResult;
}

/** At most this many cells are listed in a message; the rest are counted. */
const LISTED_CELLS = 8;

function listCells(cells: readonly CellKey[]): string {
  const ids = cells.map(cellId);
  const shown = ids.slice(0, LISTED_CELLS).join(', ');
  return ids.length > LISTED_CELLS ? `${shown} and ${ids.length - LISTED_CELLS} more` : shown || 'none';
}

function short(hash: string): string {
  return hash.slice(0, 12);
}

/** Whether a document carries the plan's identity and its samples digest (written since shards are verified). */
export function isVerifiable(shard: ShardInfo): boolean {
  return shard.planHash !== undefined;
}

/**
 * Checks one shard document on its own (see the module comment) and returns its shard info.
 * @throws UserError naming `f.file` and the field that is wrong.
 */
export function checkShardDocument(f: ShardFile): ShardInfo {
  const { file, result } = f;
  const shard = result.plan.shard;
  if (!shard) throw new UserError(`${file}: not a shard (no plan.shard); run it with --shard I/N`);
  const { planId, index, count, allCells } = shard;
  if (index === 0) {
    throw new UserError(
      `${file}: a consolidated document (plan.shard.index 0), not a shard: give the results files the shard jobs wrote`,
    );
  }
  if (!Number.isInteger(index) || index < 1 || index > count) {
    throw new UserError(
      `${file}: plan.shard.index is ${index}, but plan ${planId} has ${count} shard${count === 1 ? '' : 's'}: expected 1 to ${count}`,
    );
  }
  if (count > allCells.length) {
    throw new UserError(
      `${file}: plan.shard.count is ${count}, but plan ${planId} has ${allCells.length} cell${allCells.length === 1 ? '' : 's'} (plan.shard.allCells): every shard needs at least one cell`,
    );
  }
  const planCells = new Set<string>();
  for (const c of allCells) {
    if (planCells.has(cellId(c)))
      throw new UserError(`${file}: plan.shard.allCells lists ${cellId(c)} twice`);
    planCells.add(cellId(c));
  }
  const ownCells = new Set<string>();
  for (const c of result.plan.cells) {
    const id = cellId(c);
    if (!planCells.has(id)) {
      throw new UserError(
        `${file}: plan.cells has ${id}, which is not a cell of plan ${planId} (its cells: ${listCells(allCells)})`,
      );
    }
    if (ownCells.has(id)) throw new UserError(`${file}: plan.cells lists ${id} twice`);
    ownCells.add(id);
  }
  if (shard.planHash !== undefined || shard.assignment !== undefined) checkIdentity(f, shard, ownCells);
  if (shard.samplesDigest !== undefined) {
    const computed = samplesDigestOf(result.samples);
    if (computed !== shard.samplesDigest) {
      throw new UserError(
        `${file}: the samples do not match plan.shard.samplesDigest (recorded ${short(shard.samplesDigest)}, computed ${short(computed)}): they were changed after pgperf wrote them; consolidate the file the shard job wrote`,
      );
    }
  }
  return shard;
}

/** The plan's identity of a verifiable document: the split, its hash, this shard's cells, the digest's presence. */
function checkIdentity(f: ShardFile, shard: ShardInfo, ownCells: ReadonlySet<string>): void {
  const { file } = f;
  const { planId, index, count, allCells, assignment, planHash } = shard;
  if (assignment === undefined || planHash === undefined || shard.samplesDigest === undefined) {
    const missing = [
      assignment === undefined ? 'assignment' : '',
      planHash === undefined ? 'planHash' : '',
      shard.samplesDigest === undefined ? 'samplesDigest' : '',
    ].filter(Boolean);
    throw new UserError(
      `${file}: plan.shard has no ${missing.join(' and no ')}: a shard written by pgperf carries assignment, planHash and samplesDigest together (the file was edited)`,
    );
  }
  if (assignment.length !== count) {
    throw new UserError(
      `${file}: plan.shard.assignment splits the cells into ${assignment.length} shards, but plan.shard.count is ${count}`,
    );
  }
  const planCells = new Set(allCells.map(cellId));
  const shardOf = new Map<string, number>();
  for (const [i, cells] of assignment.entries()) {
    for (const c of cells) {
      const id = cellId(c);
      if (!planCells.has(id)) {
        throw new UserError(
          `${file}: plan.shard.assignment gives shard ${i + 1} the cell ${id}, which is not a cell of plan ${planId} (plan.shard.allCells)`,
        );
      }
      const other = shardOf.get(id);
      if (other !== undefined) {
        throw new UserError(
          `${file}: plan.shard.assignment gives the cell ${id} to shards ${other} and ${i + 1}; a cell belongs to one shard`,
        );
      }
      shardOf.set(id, i + 1);
    }
  }
  const unassigned = allCells.filter((c) => !shardOf.has(cellId(c)));
  if (unassigned.length) {
    throw new UserError(
      `${file}: plan.shard.assignment gives no shard the cell${unassigned.length > 1 ? 's' : ''} ${listCells(unassigned)} of plan ${planId}`,
    );
  }
  const computed = planHashOf({ planId, count, allCells, assignment });
  if (computed !== planHash) {
    throw new UserError(
      `${file}: plan.shard.planHash is ${short(planHash)}, but the plan it describes (planId, count, allCells, assignment) hashes to ${short(computed)}: the plan's identity was edited`,
    );
  }
  const assigned = assignment[index - 1]!;
  const same = assigned.length === ownCells.size && assigned.every((c) => ownCells.has(cellId(c)));
  if (!same) {
    throw new UserError(
      `${file}: plan.cells (${listCells(f.result.plan.cells)}) are not the cells plan ${planId} assigns to shard ${index}/${count} (${listCells(assigned)})`,
    );
  }
}

/**
 * The documents belong to one comparison: one plan (id, count, cells, and hash when recorded), the same
 * arms with the same commits, and all or none verifiable. `shards[i]` is the checked info of `files[i]`.
 */
export function checkOneComparison(files: readonly ShardFile[], shards: readonly ShardInfo[]): void {
  const first = files[0]!;
  const ref = shards[0]!;
  const cellsKey = (s: ShardInfo) => canonicalJson(s.allCells.map(cellId));
  for (const [i, f] of files.entries()) {
    if (i === 0) continue;
    const s = shards[i]!;
    if (s.planId !== ref.planId || s.count !== ref.count) {
      throw new UserError(
        `${f.file}: plan ${s.planId} (${s.count} shards), but ${first.file} is plan ${ref.planId} (${ref.count} shards): the shards belong to different comparisons`,
      );
    }
    if (isVerifiable(s) !== isVerifiable(ref)) {
      const [old, verified] = isVerifiable(s) ? [first, f] : [f, first];
      throw new UserError(
        `${old.file} carries no plan hash and samples digest (an older pgperf wrote it, or they were removed), but ${verified.file} does: mixed shard files cannot be verified together; consolidate the files the shard jobs of one pgperf version wrote`,
      );
    }
    if (s.planHash !== ref.planHash) {
      throw new UserError(
        `${f.file}: plan hash ${short(s.planHash!)}, but ${first.file} has ${short(ref.planHash!)} for the same plan ${ref.planId}: the shards do not agree on the plan's cells or their split (mixed plans)`,
      );
    }
    if (cellsKey(s) !== cellsKey(ref)) {
      throw new UserError(
        `${f.file}: plan.shard.allCells (${listCells(s.allCells)}) differ from ${first.file}'s (${listCells(ref.allCells)}) for the same plan ${ref.planId} (mixed plans)`,
      );
    }
    if (armsOf(f.result) !== armsOf(first.result)) {
      throw new UserError(
        `${f.file}: arms ${armsOf(f.result)}, but ${first.file} has ${armsOf(first.result)}: the shards compare different builds`,
      );
    }
  }
}

/** "base=SHA, head=SHA": the arms and the commit (or install) each measured. */
function armsOf(r: RunResult): string {
  return r.arms
    .map(
      (a) =>
        `${a.label}=${a.build?.sha ?? (a.label === 'base' ? r.source?.base?.sha : a.label === 'head' ? r.source?.head?.sha : undefined) ?? a.serverVersion}`,
    )
    .join(', ');
}

/**
 * The shards of one machine class (each checked alone and together already): each index once, each sample
 * once (within a file and across files), each cell in one shard, every sample of its shard's cells and arms.
 * Returns the shards by index.
 */
export function checkClassShards(group: readonly ShardFile[], fingerprint: string): Map<number, ShardFile> {
  const byIndex = new Map<number, ShardFile>();
  for (const f of group) {
    const { index, count } = f.result.plan.shard!;
    const other = byIndex.get(index);
    if (other) {
      throw new UserError(
        `${f.file} and ${other.file} are both shard ${index}/${count} of machine class ${fingerprint}`,
      );
    }
    byIndex.set(index, f);
  }
  const seen = new Map<string, { file: string; at: number }>();
  for (const f of group) {
    for (const [i, s] of f.result.samples.entries()) {
      const key = sampleIdentity(s);
      const before = seen.get(key);
      if (before) {
        const where =
          before.file === f.file
            ? `${f.file}: samples[${before.at}] and samples[${i}] are`
            : `${before.file} (samples[${before.at}]) and ${f.file} (samples[${i}]) both hold`;
        throw new UserError(
          `${where} the same run (${sampleKey(s)}): duplicate samples would count one measurement twice`,
        );
      }
      seen.set(key, { file: f.file, at: i });
    }
  }
  const owner = new Map<string, string>();
  for (const f of group) {
    for (const c of f.result.plan.cells) {
      const other = owner.get(cellId(c));
      if (other !== undefined) {
        throw new UserError(
          `${other} and ${f.file} both claim the cell ${cellId(c)} (plan.cells): a cell belongs to one shard`,
        );
      }
      owner.set(cellId(c), f.file);
    }
  }
  for (const f of group) {
    const cells = new Set(f.result.plan.cells.map(cellId));
    const arms = new Set(f.result.arms.map((a) => a.label));
    for (const [i, s] of f.result.samples.entries()) {
      if (!cells.has(cellId(s))) {
        throw new UserError(
          `${f.file}: samples[${i}] is of the cell ${cellId(s)}, which is not one of this shard's cells (${listCells(f.result.plan.cells)})`,
        );
      }
      if (!arms.has(s.arm)) {
        throw new UserError(
          `${f.file}: samples[${i}] is of the arm '${s.arm}', which is not an arm of the run (${[...arms].join(', ')})`,
        );
      }
    }
  }
  return byIndex;
}
