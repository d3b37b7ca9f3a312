/**
 * `mode: bisect`: the first bad commit of a regression (src/flows/bisect/), started by the label
 * `pgperf-bisect` added to a regression issue (issue-bisection.ts) or by any other event with the inputs
 * base-ref (good), head-ref (bad), one workload and clients (bisect-source.ts). Here: the inputs and the
 * event read into the flow's values, the job summary, the outputs and the gate.
 */
import type { BisectJob, JobWorkloads } from '../../../flows/bisect/bisect-source.js';
import { bisectDecision, bisectSkipped } from '../../../flows/bisect/bisect-gate.js';
import { bisectSkipReason } from '../../../flows/bisect/issue-bisection.js';
import {
  announceBisection,
  bisectFilesIn,
  bisectJobToFiles,
  chooseBisectJob,
} from '../../../flows/bisect/bisect-action-job.js';
import type { ActionDeps, ActionMode } from '../action-deps.js';
import { sourceRepoOf } from '../source-repo.js';
import type { ActionContext } from '../context.js';
import { publishGate } from '../gate.js';
import type { ActionInputs } from '../inputs.js';
import { repoUrlOf } from '../repo-url.js';
import { openInputStore } from '../store-setup.js';
import { loadInputWorkloads, workloadPath } from '../workloads.js';

export const runBisectMode: ActionMode = async (inputs, ctx, deps, resultsDir) => {
  const { logger, io } = deps;
  const skip = bisectSkipReason(ctx.eventName, ctx.payload);
  if (skip) {
    logger.info(`mode bisect: ${skip}; nothing to do`);
    io.setOutput('first-bad-commit', '');
    const { bisectFile, reportFile } = bisectFilesIn(resultsDir);
    const files = { dir: resultsDir, resultsFile: bisectFile, reportFile };
    return publishGate(io, bisectSkipped(skip, inputs.failOn), files, (l) => logger.info(l));
  }
  const job = await bisectJob(inputs, ctx, deps);
  logger.info(`bisect: ${job.basis}`);
  const store = await openInputStore(inputs, ctx.workspace, deps);
  const measure = {
    repo: sourceRepoOf(inputs, ctx),
    cacheDir: deps.cacheDir,
    extraOptions: inputs.buildOptions,
    rounds: inputs.rounds,
    durationS: inputs.duration,
    adaptive: inputs.maxRounds !== undefined ? { maxRounds: inputs.maxRounds } : undefined,
    seed: inputs.seed,
    runAs: inputs.runAs,
    outDir: resultsDir,
  };
  const analysis = { alpha: inputs.alpha, thresholdPct: inputs.threshold };
  const links = { repoUrl: repoUrlOf(inputs, ctx), runUrl: ctx.runUrl };
  const done = await bisectJobToFiles(job, { analysis, measure, links }, { ...deps, store });
  await io.writeSummary(done.markdown);
  const o = done.report.outcome;
  io.setOutput('first-bad-commit', o.kind === 'found' ? o.firstBad.sha : '');
  io.setOutput('bisect-outcome', o.kind);
  io.setOutput('bisect-json', done.bisectFile);
  io.setOutput('report-markdown', done.reportFile);
  await announceBisection(job, done, deps);
  const files = { dir: resultsDir, resultsFile: done.bisectFile, reportFile: done.reportFile };
  return publishGate(io, bisectDecision(o, inputs.failOn), files, (l) => logger.info(l));
};

/** The job of the event (the labeled regression issue, or the inputs), from their plain values. */
export function bisectJob(
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: Pick<ActionDeps, 'api' | 'actionDir'>,
): Promise<BisectJob> {
  const workloads: JobWorkloads = {
    given: inputs.workloads,
    load: () => loadInputWorkloads(inputs, ctx, deps.actionDir),
    fileOf: (name) => workloadPath(name, ctx.workspace, deps.actionDir),
  };
  const { eventName, payload } = ctx;
  const refs = { good: inputs.baseRef, bad: inputs.headRef, clients: inputs.clients };
  return chooseBisectJob({ eventName, issue: payload.issue, ...refs, workloads }, deps.api);
}
