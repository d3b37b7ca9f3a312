/**
 * A benchmark job that is one shard of a matrix (input `shard: I/N`): it measures only its cells, with the
 * seed every job of the workflow run agrees on, writes (and stores) its results, and posts nothing to
 * GitHub: a shard's verdict is partial, the `mode: consolidate` job posts the one comment and status.
 */
import type { PipelineOutcome } from '../../flows/compare/pipeline/pipeline.js';
import { publishShardPart } from '../../flows/publish/publish-shard.js';
import type { RunIdSeed } from '../../flows/compare/options/shard-seed.js';
import type { ActionContext } from './context.js';
import type { ActionDeps, ActionOutcome } from './action-deps.js';
import type { FailOn } from '../../core/compare/decision/policy.js';
import { publishGate } from './gate.js';

/**
 * GITHUB_RUN_ID as the seed every shard of the matrix agrees on when input 'seed' is not set (the same in
 * every matrix job; the rule: flows/compare/options/shard-seed.ts).
 */
export function runIdSeedOf(ctx: Pick<ActionContext, 'runId'>): RunIdSeed {
  return { name: 'GITHUB_RUN_ID', ...(ctx.runId !== undefined ? { value: ctx.runId } : {}) };
}

/**
 * One shard's results published (flows/publish/publish-shard.ts) and its outputs set: results-json,
 * report-markdown and the gate's; no comment and no status (the consolidate job decides).
 */
export async function publishShard(
  outcome: PipelineOutcome,
  ctx: ActionContext,
  deps: Pick<ActionDeps, 'logger' | 'io'>,
  resultsDir: string,
  reportFileName: string,
  failOn: FailOn,
): Promise<ActionOutcome> {
  const { decision, reportFile } = await publishShardPart(
    outcome,
    { resultsDir, reportFileName, failOn, runUrl: ctx.runUrl },
    { writeSummary: (markdown) => deps.io.writeSummary(markdown), logger: deps.logger },
  );
  deps.io.setOutput('results-json', outcome.resultsFile);
  deps.io.setOutput('report-markdown', reportFile);
  return publishGate(
    deps.io,
    decision,
    { dir: resultsDir, resultsFile: outcome.resultsFile, reportFile },
    (l) => deps.logger.info(l),
  );
}
