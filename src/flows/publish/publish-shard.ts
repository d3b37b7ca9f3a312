/**
 * Publishing one shard of a matrix (a benchmark job with a shard): its report written and put in the job
 * summary under a note that says why nothing is posted (its verdict is partial; the consolidate job posts
 * the verdict over all shards), and its gate (decideShard: pending when complete, failing only when the
 * shard did not complete).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { GateDecision } from '../../core/compare/decision/flow-decision.js';
import type { FailOn } from '../../core/compare/decision/policy.js';
import { renderJobSummary } from '../../core/report/markdown/markdown.js';
import type { Logger } from '../../core/util/logger.js';
import { decideShard } from '../compare/pipeline/decide-run.js';
import type { PipelineOutcome } from '../compare/pipeline/pipeline.js';
import { reportInputOf } from '../compare/pipeline/report-input.js';

export interface PublishedShard {
  decision: GateDecision;
  reportFile: string;
}

export async function publishShardPart(
  outcome: PipelineOutcome,
  options: { resultsDir: string; reportFileName: string; failOn: FailOn; runUrl?: string | undefined },
  deps: { writeSummary(markdown: string): Promise<void>; logger: Logger },
): Promise<PublishedShard> {
  const { result } = outcome;
  const shard = result.plan.shard!;
  const cells = result.plan.cells.map((c) => `${c.workload}@${c.clients}`).join(', ');
  const note =
    `Shard ${shard.index}/${shard.count} of plan ${shard.planId} (seed ${result.plan.seed}; cells ${cells}): ` +
    'no comment and no status from this job, its verdict is partial; the consolidate job (mode: consolidate) posts the verdict over all shards.';
  const report = renderJobSummary(
    reportInputOf(result, outcome.comparison, options.runUrl ? { fallbackRunUrl: options.runUrl } : {}),
  );
  await mkdir(options.resultsDir, { recursive: true });
  const reportFile = path.join(options.resultsDir, options.reportFileName);
  await writeFile(reportFile, report);
  await deps.writeSummary(`> ${note}\n\n${report}`);
  deps.logger.info(note);
  return { decision: decideShard(result, outcome.comparison, options.failOn), reportFile };
}
