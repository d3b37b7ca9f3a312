/**
 * The Action's `mode: nightly`: the nightly flow of src/flows/nightly/nightly-flow.ts (the one `pgperf nightly` runs)
 * driven with the Action's side effects: the branch head (built from the pushed/scheduled commit or
 * `head-ref`, or the install in `head-bin-dir`) measured and saved to the results store, every stored series
 * analysed for change points, one regression issue per regression event of a workload opened, updated or
 * closed; then, optionally, the history site published to the data branch (`publish-site`), the job summary
 * (verdict first) and the outputs. The step fails under `fail-on` as `pgperf nightly` exits (nightlyDecision):
 * `regression` (default) on an open regression event, `inconclusive` also on a series measured tonight that
 * is too short to analyse, `never` not at all; a run that did not finish or was not saved fails it unless
 * `never`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { trySyncRegressionIssues } from '../../flows/nightly/regression-issues.js';
import { trySyncAlertIssues } from '../../flows/nightly/alert-issues.js';
import { trySyncTriageDigest } from '../../flows/nightly/digest-issue.js';
import { analyseStore, writeHistorySite } from '../../flows/nightly/nightly-site.js';
import {
  nightlyDecision,
  nightlyReport,
  runNightly,
  type NightlyHead,
} from '../../flows/nightly/nightly-flow.js';
import { RESULTS_FILE, logArchive, runPipeline } from '../../flows/compare/pipeline.js';
import { UserError } from '../../core/util/errors.js';
import { sourceRepoOf } from './build-arms.js';
import { nightlyHeadOf } from '../../flows/nightly/nightly-head.js';
import type { ActionContext, CommitChoice } from './context.js';
import { refuseInputs, type ActionInputs } from './inputs.js';
import { REPORT_FILE, pipelineDepsOf, type ActionDeps, type ActionMode } from './action-deps.js';
import { loadInputWorkloads } from './workloads.js';
import { openActionStore, type ActionStore } from './store-setup.js';
import { repoUrlOf } from './repo-url.js';
import { publishGate } from './gate.js';

export const runNightlyMode: ActionMode = async (inputs, ctx, deps, resultsDir) => {
  const { logger, io } = deps;
  checkNightlyInputs(inputs, deps);
  const head = nightlyCommit(inputs, ctx);
  const workloads = await loadInputWorkloads(inputs, ctx, deps.actionDir);
  const store = await openActionStore(inputs, ctx.workspace, deps.stores!, deps);
  if (!store) throw new Error('nightly: no store opened although store/store-branch is set');
  const pipelineDeps = pipelineDepsOf(deps);
  const resultsFile = path.join(resultsDir, RESULTS_FILE);
  const reportFile = path.join(resultsDir, REPORT_FILE);
  const repoUrl = repoUrlOf(inputs, ctx);
  const links = { ...(repoUrl ? { repoUrl } : {}), ...(ctx.runUrl ? { runUrl: ctx.runUrl } : {}) };
  const api = deps.api;
  try {
    logger.info(
      `nightly: measuring ${[head.ref, head.sha?.slice(0, 10)].filter(Boolean).join(' @ ') || 'the given install'}`,
    );
    const outcome = await runNightly(
      {
        head: nightlyHead(inputs, ctx, deps, head),
        workloads,
        rounds: inputs.rounds,
        durationS: inputs.duration,
        runAs: inputs.runAs,
        source: {
          repository: `${ctx.owner}/${ctx.repo}`,
          ...(ctx.runUrl ? { runUrl: ctx.runUrl } : {}),
          head: {
            ...(head.ref ? { ref: head.ref } : {}),
            ...(head.sha ? { sha: head.sha } : {}),
            chosenBy: head.chosenBy,
          },
        },
        history: { minMagnitude: inputs.threshold / 100 },
        ...(inputs.canaryBinDir ? { canary: { binDir: inputs.canaryBinDir } } : {}),
        ...(inputs.expectEveryHours !== undefined ? { expectEveryHours: inputs.expectEveryHours } : {}),
      },
      {
        logger,
        measure: async (request) => {
          const run = await logger.group('Nightly run', () =>
            runPipeline({ ...request, runDir: resultsDir }, pipelineDeps, store.archive),
          );
          logArchive(run, logger);
          return run;
        },
        build: deps.build,
        signal: deps.signal,
        history: store.reader,
        ...(api
          ? {
              issues: (analysis) => trySyncRegressionIssues(api, analysis, links),
              alerts: (alerts, machines) => trySyncAlertIssues(api, alerts, machines, links),
              ...(inputs.triageDigest
                ? {
                    digest: (now: Date) =>
                      trySyncTriageDigest(api, now, {
                        links,
                        ...(inputs.raiseAfterDays !== undefined
                          ? { raiseAfterDays: inputs.raiseAfterDays }
                          : {}),
                      }),
                  }
                : {}),
            }
          : {}),
      },
    );
    io.setOutput('results-json', resultsFile);
    const notes =
      outcome.analysis && inputs.publishSite
        ? await publishSite(inputs, ctx, deps, store, inputs.publishSite, repoUrl)
        : [];
    const summary = nightlyReport(outcome, { ...(repoUrl ? { repoUrl } : {}), notes });
    await mkdir(resultsDir, { recursive: true });
    await writeFile(reportFile, summary);
    await io.writeSummary(summary);
    if (outcome.judgement) {
      io.setOutput('regressions', String(outcome.judgement.regressed.length));
      io.setOutput('improvements', String(outcome.judgement.improved.length));
    }
    io.setOutput('report-markdown', reportFile);
    const decision = nightlyDecision(outcome, inputs.failOn);
    return publishGate(io, decision, { dir: resultsDir, resultsFile, reportFile }, (l) => logger.info(l));
  } finally {
    await store.close();
  }
};

/** With store-branch and publish-site: the history site, rendered from the branch as it is now, pushed. */
async function publishSite(
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
  store: ActionStore,
  site: string,
  repoUrl: string | undefined,
): Promise<string[]> {
  if (!store.publishOnBranch) return [];
  const { logger } = deps;
  const published = await logger.group('Publishing the history site', () =>
    store.publishOnBranch!(site, async (dir, storeDir) => {
      // Rendered from the branch as it is now (after a conflicting push: with the other job's runs).
      const onBranch = await deps.stores!.open(storeDir, false);
      let pages: string[];
      try {
        pages = await writeHistorySite(
          dir,
          await analyseStore(onBranch, { minMagnitude: inputs.threshold / 100 }),
          { title: `pgperf nightly: ${ctx.owner}/${ctx.repo}`, repoUrl },
        );
      } finally {
        await onBranch.close();
      }
      logger.info(`history site: ${pages.length} pages in ${site}/ of branch ${inputs.storeBranch}`);
      return `pgperf: history site (${pages.length} pages)`;
    }),
  );
  deps.io.setOutput('site-commit', published.commit);
  return [
    `History site: \`${site}/\` of branch \`${inputs.storeBranch}\` (commit ${published.commit.slice(0, 10)}).`,
  ];
}

/** Inputs that mean nothing for one measured arm are refused, naming them, before anything runs. */
function checkNightlyInputs(inputs: ActionInputs, deps: ActionDeps): void {
  if (!inputs.store && !inputs.storeBranch) {
    throw new UserError(
      "mode nightly saves every run to the results store and analyses its history: set 'store' (a directory or postgresql:// URL) or 'store-branch' (e.g. pgperf-data)",
    );
  }
  if (!deps.stores)
    throw new UserError("inputs 'store'/'store-branch' are set but this runner cannot open a store");
  refuseInputs('mode nightly measures the branch head alone, against its stored history', [
    ['base-ref', inputs.baseRef !== undefined],
    ['base-bin-dir', inputs.baseBinDir !== undefined],
    ['patches', inputs.patches.length > 0],
    ['max-rounds', inputs.maxRounds !== undefined],
    ['time-budget', inputs.timeBudgetS !== undefined],
    ['baseline', inputs.baseline.kind !== 'same-job'],
  ]);
  if (inputs.headBinDir && (inputs.repo !== undefined || inputs.buildOptions.length > 0)) {
    throw new UserError(
      "input 'head-bin-dir' gives a pre-built install, but 'repo'/'build-options' build PostgreSQL: remove one or the other",
    );
  }
  if (!inputs.githubToken) {
    throw new UserError(
      "mode nightly keeps one issue per regression event of a workload: pass 'github-token' (default ${{ github.token }}) with issues: write",
    );
  }
}

/** The commit measured: the input head-ref, else the commit (and branch) the workflow runs on. */
function nightlyCommit(inputs: ActionInputs, ctx: ActionContext): CommitChoice {
  const given = inputs.headBinDir ? ` (input head-bin-dir ${inputs.headBinDir})` : '';
  if (inputs.headRef) {
    const isSha = /^[0-9a-f]{40}$/i.test(inputs.headRef);
    return {
      label: 'head',
      ...(isSha ? { sha: inputs.headRef } : { ref: inputs.headRef }),
      chosenBy: `nightly: input head-ref${given}`,
    };
  }
  if (!ctx.sha) {
    throw new UserError(
      `mode nightly measures the branch head: set 'head-ref' (e.g. master), or run on a push or schedule event (the '${ctx.eventName}' event gave no GITHUB_SHA)`,
    );
  }
  return {
    label: 'head',
    sha: ctx.sha,
    ...(ctx.refName ? { ref: ctx.refName } : {}),
    chosenBy: `nightly: the ${ctx.eventName || 'workflow'} event's commit${given}`,
  };
}

/** The head to measure: the install in head-bin-dir, or the chosen commit built from source. */
function nightlyHead(
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
  head: CommitChoice,
): NightlyHead {
  if (!inputs.headBinDir && !deps.build) {
    throw new UserError("building PostgreSQL from source is not available here: set 'head-bin-dir'");
  }
  return nightlyHeadOf(
    {
      ...(inputs.headBinDir ? { binDir: path.resolve(inputs.headBinDir) } : {}),
      commit: head,
      source: () => ({
        repo: sourceRepoOf(inputs, ctx),
        extraOptions: inputs.buildOptions,
        cacheDir: deps.cacheDir,
      }),
    },
    { bin: "input 'head-bin-dir'", ref: "input 'head-ref'", repo: "input 'repo'" },
  );
}
