/**
 * The Action's `mode: nightly`: measure the branch head (built from the pushed/scheduled commit, or the
 * install in `head-bin-dir`), save the run to the results store, analyse every stored series for change
 * points, open/update/close one regression issue per series, optionally publish the history site to the
 * data branch (`publish-site`), and write the job summary, verdict first. The run, the analysis and the
 * rendering are the nightly domain code `pgperf nightly` uses (src/pipeline/nightly.ts, src/history/nightly.ts).
 * Regressions do not fail the step (the issues are the notification); a run that did not finish or was
 * not saved does.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describeSync, syncRegressionIssues } from '../github/regression-issues.js';
import { analyseStore, judgeHistory, renderNightlySummary, writeHistorySite } from '../history/nightly.js';
import type { HistoryOptions } from '../history/analyse.js';
import { nightlyRunRequest } from '../pipeline/nightly.js';
import { RESULTS_FILE, logArchive, runPipeline, type PipelineDeps } from '../pipeline/pipeline.js';
import type { ArmSpec } from '../runner/run-loop.js';
import { escapeMarkdown } from '../report/markdown-escape.js';
import { UserError } from '../util/errors.js';
import { buildRequestFor, headOnly } from './build-arms.js';
import type { ActionContext, CommitChoice } from './context.js';
import type { ActionInputs } from './inputs.js';
import { REPORT_FILE, pipelineDepsOf, type ActionDeps, type ActionOutcome } from './action-deps.js';
import { loadInputWorkloads } from './workloads.js';
import { tolerateApiError } from './github-publish.js';
import { openActionStore } from './store-setup.js';
import { repoUrlOf } from './repo-url.js';

export async function runNightlyMode(
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
  resultsDir: string,
): Promise<ActionOutcome> {
  const { logger, io } = deps;
  checkNightlyInputs(inputs, deps);
  const head = nightlyCommit(inputs, ctx);
  const workloads = await loadInputWorkloads(inputs, ctx, deps.actionDir);
  const store = await openActionStore(inputs, ctx.workspace, deps.stores!, deps);
  if (!store) throw new Error('nightly: no store opened although store/store-branch is set');
  const pipelineDeps = pipelineDepsOf(deps, store);
  const resultsFile = path.join(resultsDir, RESULTS_FILE);
  const reportFile = path.join(resultsDir, REPORT_FILE);
  try {
    logger.info(`nightly: measuring ${describe(head)}`);
    const arm = await headArm(inputs, ctx, deps, head, pipelineDeps);
    const request = nightlyRunRequest(arm, {
      workloads,
      rounds: inputs.rounds,
      durationS: inputs.duration,
      runAs: inputs.runAs,
      source: {
        repository: `${ctx.owner}/${ctx.repo}`,
        ...(ctx.runUrl ? { runUrl: ctx.runUrl } : {}),
        head: {
          ...(head.ref ? { ref: head.ref } : {}),
          ...((arm.build?.sha ?? head.sha) ? { sha: arm.build?.sha ?? head.sha } : {}),
          chosenBy: head.chosenBy,
        },
      },
    });
    const outcome = await logger.group('Nightly run', () =>
      runPipeline({ ...request, runDir: resultsDir }, pipelineDeps),
    );
    io.setOutput('results-json', resultsFile);
    if (outcome.result.status !== 'complete') {
      const why = outcome.result.stopReason ? ` (${outcome.result.stopReason})` : '';
      const failure = `the nightly run is '${outcome.result.status}'${why}: nothing was added to the history`;
      await io.writeSummary(
        `## pgperf nightly: ⚠️ no verdict\n\n${escapeMarkdown(failure)}; nothing was analysed.\n`,
      );
      io.setOutput('verdict', 'inconclusive');
      return {
        verdict: 'inconclusive',
        failure,
        resultsFile,
        reportFile,
      };
    }
    logArchive(outcome, logger);

    const options: HistoryOptions = { minMagnitude: inputs.threshold / 100 };
    const analysis = await analyseStore(store.reader, options);
    const judgement = judgeHistory(analysis);
    const links = { repoUrl: repoUrlOf(inputs, ctx), ...(ctx.runUrl ? { runUrl: ctx.runUrl } : {}) };
    const notes: string[] = [];
    const api = deps.api;
    if (api) {
      await tolerateApiError(logger, 'issues: write', async () => {
        const done = await syncRegressionIssues(api, analysis, links);
        const numbers = [...done.opened, ...done.updated, ...done.closed].map((n) => `#${n}`);
        logger.info(`regression issues: ${describeSync(done)}`);
        notes.push(
          `Regression issues: ${describeSync(done)}${numbers.length ? ` (${numbers.join(', ')})` : ''}.`,
        );
      });
    }
    if (inputs.publishSite && store.publishOnBranch) {
      const site = inputs.publishSite;
      const published = await logger.group('Publishing the history site', () =>
        store.publishOnBranch!(site, async (dir, storeDir) => {
          // Rendered from the branch as it is now (after a conflicting push: with the other job's runs).
          const onBranch = await deps.stores!.open(storeDir, false);
          let pages: string[];
          try {
            pages = await writeHistorySite(dir, await analyseStore(onBranch, options), {
              title: `pgperf nightly: ${ctx.owner}/${ctx.repo}`,
              repoUrl: links.repoUrl,
            });
          } finally {
            await onBranch.close();
          }
          logger.info(`history site: ${pages.length} pages in ${site}/ of branch ${inputs.storeBranch}`);
          return `pgperf: history site (${pages.length} pages)`;
        }),
      );
      io.setOutput('site-commit', published.commit);
      notes.push(
        `History site: \`${site}/\` of branch \`${inputs.storeBranch}\` (commit ${published.commit.slice(0, 10)}).`,
      );
    }
    const summary = renderNightlySummary(analysis, judgement, {
      repoUrl: links.repoUrl,
      measured: describe({ ...head, sha: request.source?.head?.sha }),
      notes,
    });
    await mkdir(resultsDir, { recursive: true });
    await writeFile(reportFile, summary);
    await io.writeSummary(summary);
    io.setOutput('verdict', judgement.verdict);
    io.setOutput('regressions', String(judgement.regressed.length));
    io.setOutput('improvements', String(judgement.improved.length));
    io.setOutput('report-markdown', reportFile);
    logger.info(
      `nightly verdict: ${judgement.verdict} (${judgement.regressed.length} series regressed, ${judgement.improved.length} improved, ${analysis.series.length} series over ${analysis.runs} runs)`,
    );
    return {
      verdict: judgement.verdict,
      ...(outcome.archived
        ? {}
        : {
            failure: `the nightly run was not saved to the store: ${outcome.archiveError ?? 'unknown error'}`,
          }),
      resultsFile,
      reportFile,
    };
  } finally {
    await store.close();
  }
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
  const refused = (
    [
      ['base-ref', inputs.baseRef !== undefined],
      ['base-bin-dir', inputs.baseBinDir !== undefined],
      ['patches', inputs.patches.length > 0],
      ['max-rounds', inputs.maxRounds !== undefined],
      ['time-budget', inputs.timeBudgetS !== undefined],
      ['baseline', inputs.baseline.kind !== 'same-job'],
    ] as const
  ).filter(([, set]) => set);
  if (refused.length > 0) {
    throw new UserError(
      `mode nightly measures the branch head alone, against its stored history: remove '${refused.map(([n]) => n).join("', '")}'`,
    );
  }
  if (inputs.headBinDir && (inputs.repo !== undefined || inputs.buildOptions.length > 0)) {
    throw new UserError(
      "input 'head-bin-dir' gives a pre-built install, but 'repo'/'build-options' build PostgreSQL: remove one or the other",
    );
  }
  if (!inputs.githubToken) {
    throw new UserError(
      "mode nightly opens one issue per regressed series: pass 'github-token' (default ${{ github.token }}) with issues: write",
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

async function headArm(
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
  head: CommitChoice,
  pipelineDeps: PipelineDeps,
): Promise<ArmSpec> {
  if (inputs.headBinDir) return { label: 'head', binDir: path.resolve(inputs.headBinDir), settings: {} };
  if (!deps.build) {
    throw new UserError("building PostgreSQL from source is not available here: set 'head-bin-dir'");
  }
  // The build stage builds two arms; with base = head the second is a cache hit.
  const request = await buildRequestFor(
    ctx,
    { base: { ...head, label: 'base' }, head },
    inputs,
    deps.cacheDir,
  );
  return headOnly({ kind: 'build', request }, pipelineDeps);
}

function describe(c: { ref?: string; sha?: string }): string {
  return [c.ref, c.sha?.slice(0, 10)].filter(Boolean).join(' @ ') || 'the given install';
}
