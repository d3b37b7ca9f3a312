/**
 * `mode: consolidate`: the shards of a matrix (input `shard` in each benchmark job) as one verdict, one
 * sticky comment and one commit status (src/flows/consolidate: collect-shards.ts gathers them from
 * results-dir and the store, waiting up to wait-timeout; publish-consolidated.ts judges and publishes).
 * The PR and the commit come from the event (publish-target.ts), never from the results.
 */
import { eventTarget } from '../../../flows/publish/publish-target.js';
import { collectShards } from '../../../flows/consolidate/collect-shards.js';
import { publishConsolidation } from '../../../flows/consolidate/publish-consolidated.js';
import type { ActionMode } from '../action-deps.js';
import { outcomeOf, outputSide } from '../gate.js';
import { publishingOf } from '../publish-comparison.js';
import { sharedSeedOf } from '../../../flows/compare/options/shard-seed.js';
import { runIdSeedOf } from '../shard-job.js';
import { openInputStore, storeAccess } from '../store-setup.js';
import { vouchedEventOf } from '../trusted-target.js';

export const runConsolidate: ActionMode = async (inputs, ctx, deps, resultsDir) => {
  const target = await eventTarget(vouchedEventOf(ctx), inputs.prNumber, deps.api, 'mode consolidate');
  deps.logger.info(`consolidate mode: publishing for ${target.basis}`);
  const useStore = Boolean(storeAccess(inputs, deps));
  const openStore = async () => (await openInputStore(inputs, ctx.workspace, deps))!;
  // The shards of one workflow run share its seed (the default of input 'seed' in every job).
  const seed = sharedSeedOf(inputs.seed, runIdSeedOf(ctx));
  const sources = { resultsDir, planId: inputs.planId, seed, waitTimeoutS: inputs.waitTimeoutS };
  const shards = await collectShards({ ...sources, ...(useStore ? { openStore } : {}) }, target, deps);
  const publishing = publishingOf(inputs, ctx, target, resultsDir);
  const published = await publishConsolidation(shards, publishing, outputSide(deps.io), deps);
  return outcomeOf(published.decision, published.resultsFile, published.reportFile);
};
