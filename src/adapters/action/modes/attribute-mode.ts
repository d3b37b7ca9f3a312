/**
 * `mode: attribute`: the commits of base-ref..head-ref (first-parent line) that moved the instructions per
 * transaction (src/flows/attribute/, docs/attribute.md), on workflow_dispatch or a schedule. Here: the
 * inputs read into the flow's request, the report in the job summary, attribution.json, waterfall.svg and
 * attribution.md under results-dir (upload it as an artifact; the journal there resumes a re-run job that
 * restores it), the outputs and the gate (an attribution passes when it completes). A `/pgperf attribute`
 * command's report is posted by mode comment from this job's artifact (docs/pr-commands.md).
 */
import path from 'node:path';
import {
  DEFAULT_MAX_COMMITS,
  checkAttributionRequest,
  runAttribution,
  type AttributionRequest,
} from '../../../flows/attribute/attribution-flow.js';
import { attributionDecision } from '../../../flows/attribute/attribution-gate.js';
import { renderAttributionMarkdown } from '../../../core/report/attribution/attribution-markdown.js';
import type { ActionMode } from '../action-deps.js';
import type { ActionContext } from '../context.js';
import { publishGate } from '../gate.js';
import type { ActionInputs } from '../inputs.js';
import { repoUrlOf } from '../repo-url.js';
import { sourceRepoOf } from '../source-repo.js';
import { loadInputWorkloads } from '../workloads.js';

export const runAttributeMode: ActionMode = async (inputs, ctx, deps, resultsDir) => {
  const { logger, io } = deps;
  const request = await attributionRequestOf(inputs, ctx, deps.actionDir, deps.cacheDir, resultsDir);
  const report = await logger.group(`Attribution ${inputs.baseRef}..${inputs.headRef}`, () =>
    runAttribution(request, {
      runner: deps.runner,
      logger,
      ...(deps.signal ? { signal: deps.signal } : {}),
    }),
  );
  const reportFile = path.join(resultsDir, 'attribution.md');
  const attributionFile = path.join(resultsDir, 'attribution.json');
  // The job summary cannot show a file of the job: the text waterfall there, the image in results-dir.
  await io.writeSummary(
    renderAttributionMarkdown(report, { repoUrl: repoUrlOf(inputs, ctx), runUrl: ctx.runUrl }),
  );
  io.setOutput('attribution-json', attributionFile);
  io.setOutput('report-markdown', reportFile);
  io.setOutput('culprits', report.culprits.map((c) => c.sha).join('\n'));
  const files = { dir: resultsDir, resultsFile: attributionFile, reportFile };
  return publishGate(io, attributionDecision(report, inputs.failOn), files, (l) => logger.info(l));
};

/** The flow's request from the inputs: base-ref is --from, head-ref --to (both required: inputs.ts). */
export async function attributionRequestOf(
  inputs: ActionInputs,
  ctx: ActionContext,
  actionDir: string,
  cacheDir: string,
  resultsDir: string,
): Promise<AttributionRequest> {
  const workloads = await loadInputWorkloads(inputs, ctx, actionDir);
  checkAttributionRequest({ workloads, maxCommits: DEFAULT_MAX_COMMITS });
  return {
    repo: sourceRepoOf(inputs, ctx),
    from: inputs.baseRef!,
    to: inputs.headRef!,
    cacheDir,
    extraOptions: inputs.buildOptions,
    workloads,
    maxCommits: DEFAULT_MAX_COMMITS,
    instructionCounter: { counter: inputs.instructionCounter },
    ...(inputs.runAs !== undefined ? { runAs: inputs.runAs } : {}),
    outDir: resultsDir,
  };
}
