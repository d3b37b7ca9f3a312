/**
 * The shards a consolidate job consolidates (gather-shards.ts): the results.json files under the results
 * directory and/or the shard runs in the store for the head commit GitHub vouches for, waited for up to a
 * deadline while some are missing. Each must agree with the target on its commit and PR (publish-target.ts):
 * a shard that names another commit or PR is refused.
 */
import { UserError } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import { checkClaims, type PublishTarget } from '../publish/publish-target.js';
import type { ShardFile } from './shard-merge.js';
import {
  findResultsFiles,
  outstandingShards,
  readShardFiles,
  selectShards,
  shardsInStore,
  waitForShards,
  type ShardSelection,
  type ShardStore,
} from './gather-shards.js';

/** How often the store is asked again while shards are missing. */
const POLL_S = 10;

/** A store opened for one look, closed after it. */
export interface OpenedShardStore {
  reader: ShardStore;
  close(): Promise<void>;
}

export interface ShardSources {
  /** Searched recursively for results.json (downloaded artifacts land in one sub-directory each). */
  resultsDir: string;
  /** Opens the store for one look; absent: the store is not searched. */
  openStore?: () => Promise<OpenedShardStore>;
  /** Only the shards of this plan. */
  planId?: string;
  /** Only the stored shards of this seed (the seed the shards of one workflow run share). */
  seed?: number;
  /** How long to wait for missing shards in the store, in seconds (0: no wait). */
  waitTimeoutS: number;
}

/**
 * The shards to consolidate, for `target` (its headSha set), with what was left out logged and what is
 * still missing warned about.
 * @throws UserError when no shard is found, or a shard names another commit or PR than the target.
 */
export async function collectShards(
  sources: ShardSources,
  target: PublishTarget,
  deps: { logger: Logger; signal?: AbortSignal },
): Promise<ShardFile[]> {
  const { logger } = deps;
  const { resultsDir, openStore, planId, seed, waitTimeoutS } = sources;
  const headSha = target.headSha!;
  const fromStore = async (open: () => Promise<OpenedShardStore>) => {
    const store = await open();
    try {
      return await shardsInStore(store.reader, {
        headSha,
        ...(planId ? { planId } : {}),
        ...(seed !== undefined ? { seed } : {}),
      });
    } finally {
      await store.close();
    }
  };
  const gather = async (): Promise<ShardSelection> => {
    const files = await readShardFiles(await findResultsFiles(resultsDir), logger);
    return selectShards(files, openStore ? await fromStore(openStore) : [], planId);
  };
  const { selection, outstanding } =
    openStore && waitTimeoutS > 0
      ? await waitForShards(
          gather,
          { timeoutS: waitTimeoutS, pollS: POLL_S },
          { logger, sleep, now: Date.now, ...(deps.signal ? { signal: deps.signal } : {}) },
        )
      : await gather().then((s) => ({ selection: s, outstanding: outstandingShards(s.shards) }));
  for (const note of selection.notes) logger.info(note);
  if (selection.shards.length === 0) {
    const where = [
      `results.json under ${resultsDir}`,
      ...(openStore
        ? [
            `shard runs in the store for head ${headSha.slice(0, 12)}${planId ? `, plan ${planId}` : ''}${seed !== undefined ? `, seed ${seed}` : ''}${waitTimeoutS > 0 ? ` (waited ${waitTimeoutS} s)` : ''}`,
          ]
        : []),
    ];
    throw new UserError(
      `mode consolidate: no shards found (looked for ${where.join(' and ')}); the benchmark jobs need the input 'shard' (and 'store', or an uploaded results-dir downloaded here)`,
    );
  }
  if (outstanding.length > 0) logger.warn(`consolidating without ${outstanding.join('; ')}`);
  for (const s of selection.shards) checkClaims(s.result, target, s.file);
  logger.info(`consolidating ${selection.shards.map((s) => s.file).join(', ')}`);
  return selection.shards;
}

/** Waits `ms`, or less when `signal` aborts (then the wait ends early and the last look is used). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
