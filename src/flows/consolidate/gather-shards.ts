/**
 * Finding the shards of a comparison: results.json files under a directory (downloaded artifacts land in
 * one sub-directory each) and runs in a results store (the shards of one head commit, plan and seed), the
 * choice of which to consolidate, what is still missing, and waiting for it with a deadline.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { readResults } from '../../store/read-results.js';
import type { RunResult } from '../../core/results/result-types.js';
import { UserError } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import { machineClassOf, type ShardFile } from './shard-merge.js';
import { checkShardDocument } from './verify-shards.js';

/** Every file named `name` under `dir`, recursively, sorted; none when `dir` does not exist. */
export async function findResultsFiles(dir: string, name = 'results.json'): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  return entries
    .filter((e) => e.isFile() && e.name === name)
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/**
 * The shards among `files`: consolidated documents (shard index 0) are not shards and are left out. Each
 * shard is checked on its own (verify-shards.ts: index, cells, samples digest) as it is read.
 * @throws UserError naming a file that is no valid shard.
 */
export async function readShardFiles(files: readonly string[], logger: Logger): Promise<ShardFile[]> {
  const out: ShardFile[] = [];
  for (const file of files) {
    const result = await readResults(file);
    if (result.plan.shard?.index === 0) {
      logger.info(`${file}: a consolidated document, not a shard; left out`);
      continue;
    }
    if (result.plan.shard) checkShardDocument({ file, result });
    out.push({ file, result });
  }
  return out;
}

/** What this module needs of a results store (src/store's ResultStore has it). */
export interface ShardStore {
  list(filter: { commit: string; arm: string }): Promise<Array<{ id: string }>>;
  load(id: string): Promise<RunResult>;
}

export interface StoreShardQuery {
  /** The head commit the shards measured (from the event, never from the results). */
  headSha: string;
  planId?: string;
  /** The seed the shards of one workflow run share; undefined: any. */
  seed?: number;
}

/**
 * The shard runs in the store for the head commit (and plan id and seed, when given), each checked on its
 * own (verify-shards.ts).
 * @throws UserError naming a stored run that is no valid shard.
 */
export async function shardsInStore(store: ShardStore, query: StoreShardQuery): Promise<ShardFile[]> {
  const listed = await store.list({ commit: query.headSha, arm: 'head' });
  const out: ShardFile[] = [];
  for (const run of listed) {
    const result = await store.load(run.id);
    const shard = result.plan.shard;
    if (!shard || shard.index === 0) continue;
    if (query.planId !== undefined && shard.planId !== query.planId) continue;
    if (query.seed !== undefined && result.plan.seed !== query.seed) continue;
    const found = { file: `store run ${run.id}`, result };
    checkShardDocument(found);
    out.push(found);
  }
  return out;
}

export interface ShardSelection {
  planId?: string;
  shards: ShardFile[];
  /** What was left out and why, for the log. */
  notes: string[];
}

/**
 * The shards to consolidate: every file (a file of another plan than `planId` is left out, and said so;
 * files of different plans without `planId` are refused later by consolidateShards, naming them), then the
 * store's runs of the same plan that no file covers; of a shard stored twice (a re-run job), the newest.
 */
export function selectShards(
  files: readonly ShardFile[],
  stored: readonly ShardFile[],
  planId?: string,
): ShardSelection {
  const notes: string[] = [];
  const planOf = (f: ShardFile) => f.result.plan.shard?.planId;
  const kept = files.filter((f) => {
    if (planId === undefined || planOf(f) === undefined || planOf(f) === planId) return true;
    notes.push(`${f.file}: plan ${planOf(f)}, not ${planId}; left out`);
    return false;
  });
  let plan = planId ?? kept.map(planOf).find((p) => p !== undefined);
  if (plan === undefined) {
    const plans = [...new Set(stored.map(planOf))];
    if (plans.length > 1) {
      throw new UserError(
        `the store holds shards of ${plans.length} plans for this commit (${plans.join(', ')}): set 'plan-id' to the one to consolidate`,
      );
    }
    plan = plans[0];
  }
  const key = (r: RunResult) => `${machineClassOf(r)}#${r.plan.shard!.index}`;
  const covered = new Set(kept.filter((f) => f.result.plan.shard).map((f) => key(f.result)));
  const newest = new Map<string, ShardFile>();
  for (const s of stored) {
    if (planOf(s) !== plan || covered.has(key(s.result))) continue;
    const other = newest.get(key(s.result));
    if (!other || Date.parse(s.result.startedAt) > Date.parse(other.result.startedAt)) {
      if (other)
        notes.push(`${other.file}: an older run of shard ${other.result.plan.shard!.index}; left out`);
      newest.set(key(s.result), s);
    } else {
      notes.push(`${s.file}: an older run of shard ${s.result.plan.shard!.index}; left out`);
    }
  }
  return { ...(plan !== undefined ? { planId: plan } : {}), shards: [...kept, ...newest.values()], notes };
}

/**
 * What is still to come, per machine class: shards not there, or there but still running. Empty when
 * every known class has all its shards finished; "every shard" when none was found.
 */
export function outstandingShards(shards: readonly ShardFile[]): string[] {
  const withShard = shards.filter((s) => s.result.plan.shard);
  if (withShard.length === 0) return ['every shard (none found)'];
  const count = withShard[0]!.result.plan.shard!.count;
  const classes = new Map<string, ShardFile[]>();
  for (const s of withShard) {
    const id = machineClassOf(s.result);
    classes.set(id, [...(classes.get(id) ?? []), s]);
  }
  const out: string[] = [];
  for (const [id, group] of classes) {
    const done = new Set(
      group.filter((s) => s.result.status !== 'running').map((s) => s.result.plan.shard!.index),
    );
    const waiting = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !done.has(i));
    if (waiting.length)
      out.push(
        `shard${waiting.length > 1 ? 's' : ''} ${waiting.join(', ')} of ${count} on machine class ${id}`,
      );
  }
  return out;
}

export interface WaitDeps {
  logger: Logger;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
  signal?: AbortSignal;
}

/**
 * Gathers until nothing is outstanding or `timeoutS` has passed, polling every `pollS` seconds; returns
 * the last selection and what is still missing (the consolidation then names it).
 */
export async function waitForShards(
  gather: () => Promise<ShardSelection>,
  options: { timeoutS: number; pollS: number },
  deps: WaitDeps,
): Promise<{ selection: ShardSelection; outstanding: string[] }> {
  const deadline = deps.now() + options.timeoutS * 1000;
  for (;;) {
    const selection = await gather();
    const outstanding = outstandingShards(selection.shards);
    const left = deadline - deps.now();
    if (outstanding.length === 0 || left <= 0 || deps.signal?.aborted) return { selection, outstanding };
    deps.logger.info(
      `waiting for ${outstanding.join('; ')} (${Math.ceil(left / 1000)} s left of wait-timeout ${options.timeoutS} s)`,
    );
    await deps.sleep(Math.min(options.pollS * 1000, left), deps.signal);
  }
}
