/**
 * The Action's `mode: nightly`: the nightly job of src/flows/nightly/nightly-job.ts (the one `pgperf nightly`
 * runs) with the Action's side effects: the branch head (the pushed or scheduled commit, or `head-ref`, built;
 * or the install in `head-bin-dir`) measured into the results store, the history analysed for change points,
 * the regression and alert issues kept; then the history site on the data branch (`publish-site`), the job
 * summary (verdict first) and the outputs. The step fails under `fail-on` as `pgperf nightly` exits
 * (nightlyDecision); a run that did not finish or was not saved fails it unless `never`.
 */
import path from 'node:path';
import { publishSiteOnBranch } from '../../../flows/nightly/publish-site.js';
import { concludeNight, runNightlyJob } from '../../../flows/nightly/nightly-job.js';
import { RESULTS_FILE, logArchive, runPipeline } from '../../../flows/compare/pipeline/pipeline.js';
import { UserError } from '../../../core/util/errors.js';
import { inspectBinDir } from '../../../postgres/cluster/cluster.js';
import { resolveRunAs } from '../../../postgres/cluster/run-as.js';
import { sourceRepoOf } from '../source-repo.js';
import { nightlyHeadOf, type NightlyChoice } from '../../../flows/nightly/nightly-head.js';
import type { ActionContext } from '../context.js';
import type { ActionInputs } from '../inputs.js';
import { REPORT_FILE, pipelineDepsOf, type ActionDeps, type ActionMode } from '../action-deps.js';
import { loadInputWorkloads, workloadPath } from '../workloads.js';
import type { AutoBisectorOptions } from '../../../flows/bisect/auto-bisection.js';
import { autoAttributorThenBisector } from '../../../flows/attribute/issue-attribution.js';
import { openInputStore, storeAccess } from '../store-setup.js';
import { repoUrlOf } from '../repo-url.js';
import { publishGate } from '../gate.js';

export const runNightlyMode: ActionMode = async (inputs, ctx, deps, resultsDir) => {
  const { logger, io, api } = deps;
  // Refused before the canary is inspected (inputs.ts made store or store-branch required).
  storeAccess(inputs, deps);
  // The canary must be a usable install before tonight's head spends its build and rounds (--canary-bin too).
  if (inputs.canaryBinDir) {
    const runAs = await resolveRunAs(inputs.runAs, { runner: deps.runner, logger });
    await inspectBinDir(inputs.canaryBinDir, "input 'canary-bin-dir'", { runner: deps.runner, runAs });
  }
  const { head, commit } = nightlyChoice(inputs, ctx, deps);
  const workloads = await loadInputWorkloads(inputs, ctx, deps.actionDir);
  const store = await openInputStore(inputs, ctx.workspace, deps);
  if (!store) throw new Error('nightly: no store opened although store/store-branch is set');
  const resultsFile = path.join(resultsDir, RESULTS_FILE);
  const reportFile = path.join(resultsDir, REPORT_FILE);
  const repoUrl = repoUrlOf(inputs, ctx);
  const repository = `${ctx.owner}/${ctx.repo}`;
  const changePoints = { magnitudePct: inputs.threshold };
  try {
    logger.info(
      `nightly: measuring ${[commit.ref, commit.sha?.slice(0, 10)].filter(Boolean).join(' @ ') || 'the given install'}`,
    );
    const outcome = await runNightlyJob(
      {
        head,
        commit,
        workloads,
        rounds: inputs.rounds,
        durationS: inputs.duration,
        runAs: inputs.runAs,
        repository,
        runUrl: ctx.runUrl,
        repoUrl,
        changePoints,
        canaryBinDir: inputs.canaryBinDir,
        expectEveryHours: inputs.expectEveryHours,
        backfill: inputs.backfill,
        issues: api && {
          api,
          triageDigest: inputs.triageDigest,
          raiseAfterDays: inputs.raiseAfterDays,
          autoBisectPerWeek: inputs.autoBisectPerWeek,
        },
      },
      {
        logger,
        measure: async (request) => {
          const run = await logger.group('Nightly run', () =>
            runPipeline({ ...request, runDir: resultsDir }, pipelineDepsOf(deps), store.archive),
          );
          logArchive(run, logger);
          return run;
        },
        build: deps.build,
        signal: deps.signal,
        history: store.reader,
        ...(api && deps.build
          ? {
              bisect: autoAttributorThenBisector(autoBisectOptions(inputs, ctx, deps, resultsDir), {
                ...deps,
                api,
                store,
              }),
            }
          : {}),
        backfill: { runner: deps.runner },
      },
    );
    io.setOutput('results-json', resultsFile);
    const site =
      outcome.analysis && inputs.publishSite
        ? await publishSiteOnBranch(
            store,
            { site: inputs.publishSite, branch: inputs.storeBranch, repository, repoUrl, changePoints },
            { logger, openStore: (dir) => deps.stores!.open(dir, false) },
          )
        : undefined;
    if (site) io.setOutput('site-commit', site.commit);
    const notes = site ? [site.note] : [];
    const { report, decision } = await concludeNight(outcome, {
      repoUrl,
      notes,
      failOn: inputs.failOn,
      reportFile,
    });
    await io.writeSummary(report);
    if (outcome.judgement) {
      io.setOutput('regressions', String(outcome.judgement.regressed.length));
      io.setOutput('improvements', String(outcome.judgement.improved.length));
    }
    io.setOutput('report-markdown', reportFile);
    return publishGate(io, decision, { dir: resultsDir, resultsFile, reportFile }, (l) => logger.info(l));
  } finally {
    await store.close();
  }
};

/**
 * How a bisection the night starts without a label is measured: as mode bisect would measure the labeled
 * issue with the same inputs (source repository, build options, rounds, duration).
 */
function autoBisectOptions(
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
  resultsDir: string,
): AutoBisectorOptions {
  return {
    analysis: { alpha: inputs.alpha, thresholdPct: inputs.threshold },
    measure: {
      repo: sourceRepoOf(inputs, ctx),
      cacheDir: deps.cacheDir,
      extraOptions: inputs.buildOptions,
      rounds: inputs.rounds,
      durationS: inputs.duration,
      ...(inputs.maxRounds !== undefined ? { adaptive: { maxRounds: inputs.maxRounds } } : {}),
      seed: inputs.seed,
      runAs: inputs.runAs,
      outDir: resultsDir,
    },
    links: { repoUrl: repoUrlOf(inputs, ctx), runUrl: ctx.runUrl },
    workloads: {
      given: inputs.workloads,
      load: () => loadInputWorkloads(inputs, ctx, deps.actionDir),
      fileOf: (name) => workloadPath(name, ctx.workspace, deps.actionDir),
    },
  };
}

/**
 * The head to measure and its commit (nightly-head.ts): the install in head-bin-dir or the commit built from
 * source; the commit head-ref, else the one the event ran on.
 */
function nightlyChoice(inputs: ActionInputs, ctx: ActionContext, deps: ActionDeps): NightlyChoice {
  if (!inputs.headRef && !ctx.sha) {
    throw new UserError(
      `mode nightly measures the branch head: set 'head-ref' (e.g. master), or run on a push or schedule event (the '${ctx.eventName}' event gave no GITHUB_SHA)`,
    );
  }
  if (!inputs.headBinDir && !deps.build) {
    throw new UserError("building PostgreSQL from source is not available here: set 'head-bin-dir'");
  }
  return nightlyHeadOf(
    {
      ...(inputs.headBinDir ? { binDir: path.resolve(inputs.headBinDir) } : {}),
      ...(inputs.headRef ? { ref: inputs.headRef } : {}),
      ...(ctx.sha
        ? { event: { name: ctx.eventName, sha: ctx.sha, ...(ctx.refName ? { ref: ctx.refName } : {}) } }
        : {}),
      source: () => ({
        repo: sourceRepoOf(inputs, ctx),
        extraOptions: inputs.buildOptions,
        cacheDir: deps.cacheDir,
      }),
    },
    {
      bin: "input 'head-bin-dir'",
      ref: "input 'head-ref'",
      commit: "input 'head-ref'",
      repo: "input 'repo'",
    },
  );
}
