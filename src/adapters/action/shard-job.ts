/**
 * A benchmark job that is one shard of a matrix (input `shard: I/N`): it measures only its cells, with the
 * seed every job of the workflow run agrees on, writes (and stores) its results, and posts nothing to
 * GitHub: a shard's verdict is partial, the `mode: consolidate` job posts the one comment and status.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PipelineOutcome } from '../../flows/compare/pipeline.js';
import { reportInputOf } from '../../flows/compare/report-input.js';
import { renderJobSummary } from '../../core/report/markdown.js';
import { UserError } from '../../core/util/errors.js';
import type { ActionContext } from './context.js';
import type { ActionInputs } from './inputs.js';
import type { ActionDeps, ActionOutcome } from './action-deps.js';
import { decideShard } from '../../flows/compare/decide-run.js';
import type { FailOn } from '../../core/compare/policy.js';
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
 * Writes the shard's report and job summary and sets results-json and report-markdown; no comment and no
 * status (the consolidate job decides). Its gate (decideShard): pending when complete, its partial verdict
 * in the outputs; the step fails only when the shard did not complete.
 */
export async function publishShard(
  outcome: PipelineOutcome,
  ctx: ActionContext,
  deps: Pick<ActionDeps, 'logger' | 'io'>,
  resultsDir: string,
  reportFileName: string,
  failOn: FailOn,
): Promise<ActionOutcome> {
  const { result } = outcome;
  const shard = result.plan.shard!;
  const cells = result.plan.cells.map((c) => `${c.workload}@${c.clients}`).join(', ');
  const note =
    `Shard ${shard.index}/${shard.count} of plan ${shard.planId} (seed ${result.plan.seed}; cells ${cells}): ` +
    'no comment and no status from this job, its verdict is partial; the consolidate job (mode: consolidate) posts the verdict over all shards.';
  const report = renderJobSummary(
    reportInputOf(result, outcome.comparison, ctx.runUrl ? { fallbackRunUrl: ctx.runUrl } : {}),
  );
  await mkdir(resultsDir, { recursive: true });
  const reportFile = path.join(resultsDir, reportFileName);
  await writeFile(reportFile, report);
  await deps.io.writeSummary(`> ${note}\n\n${report}`);
  deps.io.setOutput('results-json', outcome.resultsFile);
  deps.io.setOutput('report-markdown', reportFile);
  deps.logger.info(note);
  const decision = decideShard(result, outcome.comparison, failOn);
  return publishGate(
    deps.io,
    decision,
    { dir: resultsDir, resultsFile: outcome.resultsFile, reportFile },
    (l) => deps.logger.info(l),
  );
}
