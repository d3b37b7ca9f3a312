/**
 * A benchmark job that is one shard of a matrix (input `shard: I/N`): it measures only its cells, with the
 * seed every job of the workflow run agrees on, writes (and stores) its results, and posts nothing to
 * GitHub: a shard's verdict is partial, the `mode: consolidate` job posts the one comment and status.
 */
import type { PipelineOutcome } from '../../flows/compare/pipeline/pipeline.js';
import { publishShardPart } from '../../flows/publish/publish-shard.js';
import { UserError } from '../../core/util/errors.js';
import type { ActionContext } from './context.js';
import type { ActionInputs } from './inputs.js';
import type { ActionDeps, ActionOutcome } from './action-deps.js';
import type { FailOn } from '../../core/compare/decision/policy.js';
import { publishGate } from './gate.js';

/**
 * The seed every shard of the matrix agrees on: the input 'seed', else the workflow run id (the same in
 * every matrix job). The cells of the shard are chosen with the comparison (comparison-options.ts).
 */
export function shardSeedOf(
  inputs: Pick<ActionInputs, 'shard' | 'seed'>,
  ctx: Pick<ActionContext, 'runId'>,
): number {
  const spec = inputs.shard!;
  const runId = ctx.runId !== undefined && /^[1-9]\d*$/.test(ctx.runId) ? Number(ctx.runId) : undefined;
  const seed = inputs.seed ?? (runId !== undefined && Number.isSafeInteger(runId) ? runId : undefined);
  if (seed === undefined) {
    throw new UserError(
      `input 'shard' (${spec.index}/${spec.count}) needs a seed every shard agrees on: set 'seed' (e.g. \${{ github.run_id }}); GITHUB_RUN_ID is ${ctx.runId === undefined ? 'not set' : `'${ctx.runId}', not a whole number`}`,
    );
  }
  return seed;
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
