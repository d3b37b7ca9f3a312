/**
 * `mode: bisect`: the first bad commit of a regression, found with `pgperf bisect`'s runBisection (each
 * commit built and A/B-tested against good by the verdict engine). Started two ways:
 * - an `issues` event that added the label `pgperf-bisect` to a regression issue of mode nightly: the
 *   series and the change point's commits come from the issue's pgperf:bisect marker, and the result is
 *   posted as a comment on the issue. Only issues the token's own login opened and that carry the
 *   series marker are trusted (as for the nightly issues and the sticky comment): nobody else's text
 *   chooses what is built;
 * - any other event (workflow_dispatch): inputs base-ref (good), head-ref (bad), one workload and clients.
 * Every A/B test is saved to the store when one is set. The result goes to the job summary, bisect.json,
 * report.md and the outputs; a first bad commit is named only when the verdict engine called it a
 * regression and the commit before it not.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_TRIES, oneCell } from '../../flows/bisect/one-cell.js';
import { renderBisectMarkdown } from './bisect-markdown.js';
import { runBisection, type BisectReport } from '../../flows/bisect/run-bisection.js';
import type { RangeNames } from '../../flows/bisect/commit-range.js';
import { loadWorkloadFile } from '../../drivers/load-workload.js';
import type { Workload } from '../../drivers/workload.js';
import { parseBisectMarker, type BisectTarget } from '../../flows/nightly/bisect-marker.js';
import { BISECT_LABEL, seriesMarker } from '../../flows/nightly/regression-issues.js';
import type { GitHubApi } from '../../github/api.js';
import { resolveAnalysis } from '../../flows/compare/analysis.js';
import { sourceRepoOf } from './build-arms.js';
import type { MetricName } from '../../core/results/metrics.js';
import { escapeMarkdown, markdownLink } from '../../core/report/markdown-escape.js';
import { bisectDecision } from '../../flows/bisect/bisect-gate.js';
import { publishGate } from './gate.js';
import { UserError, errorMessage } from '../../core/util/errors.js';
import { REPORT_FILE, type ActionDeps, type ActionMode } from './action-deps.js';
import type { ActionContext } from './context.js';
import { tolerateApiError } from './github-publish.js';
import { refuseInputs, type ActionInputs } from './inputs.js';
import { openInputStore } from './store-setup.js';
import { verifyBisectTarget } from '../../flows/nightly/verify-bisect-target.js';
import { repoUrlOf } from './repo-url.js';
import { loadInputWorkloads, workloadPath } from './workloads.js';

export const BISECT_FILE = 'bisect.json';

/** What to bisect, and where it came from. */
export interface BisectJob {
  good: string;
  bad: string;
  names: RangeNames;
  workload: Workload;
  metric?: MetricName;
  /** The regression issue to comment on (issue trigger only). */
  issue?: number;
  /** The issue's marker, checked against the store before anything is built (issue trigger only). */
  target?: BisectTarget;
  /** How the job was chosen, for the log and the summary. */
  basis: string;
}

interface IssuePayload {
  number?: unknown;
  body?: unknown;
  user?: { login?: unknown };
  pull_request?: unknown;
}

export const runBisectMode: ActionMode = async (inputs, ctx, deps, resultsDir) => {
  const { logger, io } = deps;
  checkBisectInputs(inputs);
  const reportFile = path.join(resultsDir, REPORT_FILE);
  const bisectFile = path.join(resultsDir, BISECT_FILE);
  const skip = skipReason(ctx);
  if (skip) {
    logger.info(`mode bisect: ${skip}; nothing to do`);
    io.setOutput('first-bad-commit', '');
    return { verdict: 'inconclusive', resultsFile: bisectFile, reportFile };
  }
  const job = await bisectJob(inputs, ctx, deps);
  logger.info(`bisect: ${job.basis}`);
  const store = await openInputStore(inputs, ctx.workspace, deps);
  let report: BisectReport;
  try {
    if (job.target) {
      const where = `issue #${job.issue}`;
      if (!store) {
        throw new UserError(
          `mode bisect on ${where} checks the issue's commits against the results store that nightly writes: set 'store' or 'store-branch' as the nightly job does`,
        );
      }
      await verifyBisectTarget(job.target, store.reader, where);
    }
    const analysis = resolveAnalysis({
      alpha: inputs.alpha,
      thresholdPct: inputs.threshold,
      ...(job.metric ? { metric: job.metric } : {}),
    });
    report = await logger.group('Bisection', () =>
      runBisection(
        {
          repo: sourceRepoOf(inputs, ctx),
          good: job.good,
          bad: job.bad,
          names: job.names,
          cacheDir: deps.cacheDir,
          extraOptions: inputs.buildOptions,
          workload: job.workload,
          ...(inputs.rounds !== undefined ? { rounds: inputs.rounds } : {}),
          ...(inputs.duration !== undefined ? { durationS: inputs.duration } : {}),
          ...(inputs.maxRounds !== undefined
            ? { adaptive: { alpha: analysis.alpha, maxRounds: inputs.maxRounds } }
            : {}),
          analysis,
          tries: DEFAULT_TRIES,
          ...(inputs.seed !== undefined ? { seed: inputs.seed } : {}),
          ...(inputs.runAs !== undefined ? { runAs: inputs.runAs } : {}),
          outDir: resultsDir,
        },
        {
          runner: deps.runner,
          logger,
          ...(deps.signal ? { signal: deps.signal } : {}),
          ...(deps.searchPath !== undefined ? { searchPath: deps.searchPath } : {}),
          ...(store ? { archive: store.archive } : {}),
        },
      ),
    );
  } catch (e) {
    // Whoever labeled the issue hears why nothing was bisected, there (bad commits, a failed build).
    if (job.issue !== undefined && deps.api && e instanceof UserError) {
      const api = deps.api;
      const issue = job.issue;
      const run = ctx.runUrl ? ` (${markdownLink('run', ctx.runUrl)})` : '';
      await tolerateApiError(logger, 'issues: write', async () => {
        await api.createComment(
          issue,
          `## pgperf bisect: ❌ not run\n\n${escapeMarkdown(e.message)}${run}\n`,
        );
      });
    }
    throw e;
  } finally {
    await store?.close();
  }

  const repoUrl = repoUrlOf(inputs, ctx);
  const markdown = renderBisectMarkdown(report, {
    ...(repoUrl ? { repoUrl } : {}),
    ...(ctx.runUrl ? { runUrl: ctx.runUrl } : {}),
  });
  await mkdir(resultsDir, { recursive: true });
  await writeFile(bisectFile, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(reportFile, markdown);
  await io.writeSummary(markdown);
  const o = report.outcome;
  io.setOutput('first-bad-commit', o.kind === 'found' ? o.firstBad.sha : '');
  io.setOutput('bisect-outcome', o.kind);
  io.setOutput('bisect-json', bisectFile);
  io.setOutput('report-markdown', reportFile);
  logger.info(
    o.kind === 'found'
      ? `bisect: first bad commit ${o.firstBad.sha} "${o.firstBad.subject}"`
      : `bisect: no first bad commit named (${o.kind})`,
  );

  const api = deps.api;
  if (job.issue !== undefined && api) {
    const issue = job.issue;
    await tolerateApiError(logger, 'issues: write', async () => {
      const posted = await api.createComment(issue, markdown);
      logger.info(`posted the bisection on issue #${issue} (comment ${posted.id})`);
    });
  }
  const decision = bisectDecision(o, inputs.failOn);
  return publishGate(io, decision, { dir: resultsDir, resultsFile: bisectFile, reportFile }, (l) =>
    logger.info(l),
  );
};

/** Inputs that mean nothing to a bisection are refused, naming them, before anything is built. */
function checkBisectInputs(inputs: ActionInputs): void {
  refuseInputs(
    'mode bisect builds every commit it measures from source and bounds each A/B test by rounds or max-rounds',
    [
      ['base-bin-dir', inputs.baseBinDir !== undefined],
      ['head-bin-dir', inputs.headBinDir !== undefined],
      ['patches', inputs.patches.length > 0],
      ['time-budget', inputs.timeBudgetS !== undefined],
      ['baseline', inputs.baseline.kind !== 'same-job'],
    ],
  );
  if (inputs.rounds !== undefined && inputs.maxRounds !== undefined) {
    throw new UserError(
      "inputs 'rounds' and 'max-rounds' both set: adaptive tests take their rounds from the looks",
    );
  }
}

/** An issues event that is not the bisect label being added is not for this mode (the workflow may listen to all labels). */
function skipReason(ctx: ActionContext): string | undefined {
  if (ctx.eventName !== 'issues') return undefined;
  const action = ctx.payload.action;
  const label = (ctx.payload.label as { name?: unknown } | undefined)?.name;
  if (action !== 'labeled' || label !== BISECT_LABEL) {
    return `the issues event is '${String(action)}'${label !== undefined ? ` of label '${String(label)}'` : ''}, not the label '${BISECT_LABEL}' being added`;
  }
  return undefined;
}

/** The job of the event: the labeled regression issue, or the inputs. */
export async function bisectJob(
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: Pick<ActionDeps, 'api' | 'actionDir'>,
): Promise<BisectJob> {
  if (ctx.eventName === 'issues') {
    const target = await trustedIssueTarget(ctx, deps.api);
    if (inputs.baseRef || inputs.headRef) {
      throw new UserError(
        `mode bisect on an issue bisects the issue's commits: remove the inputs 'base-ref'/'head-ref' (they are for workflow_dispatch)`,
      );
    }
    const where = `issue #${target.issue}`;
    const workload = await issueWorkload(target.target.workload, inputs, ctx, deps.actionDir, where);
    return {
      good: target.target.good,
      bad: target.target.bad,
      names: { good: `${where}'s last good commit`, bad: `${where}'s first bad commit` },
      workload: oneCell(workload, target.target.clients, `${where}'s clients`),
      metric: target.target.metric,
      issue: target.issue,
      target: target.target,
      basis:
        `${where} (series ${target.target.series}): ${target.target.workload}@${target.target.clients} ` +
        `${target.target.metric}, good ${target.target.good.slice(0, 10)}, bad ${target.target.bad.slice(0, 10)}`,
    };
  }
  if (!inputs.baseRef || !inputs.headRef) {
    throw new UserError(
      `mode bisect on a '${ctx.eventName || 'workflow'}' event needs the commits: set 'base-ref' (a good commit) and 'head-ref' (a bad one, with base-ref in its history); or label a regression issue '${BISECT_LABEL}' to bisect its commits`,
    );
  }
  if (inputs.workloads.length !== 1) {
    throw new UserError(
      `mode bisect measures one workload: set 'workloads' to exactly one workload (a shipped name or a file), got ${inputs.workloads.length === 0 ? 'none' : inputs.workloads.join(', ')}`,
    );
  }
  const [workload] = await loadInputWorkloads(inputs, ctx, deps.actionDir);
  return {
    good: inputs.baseRef,
    bad: inputs.headRef,
    names: { good: "input 'base-ref'", bad: "input 'head-ref'" },
    workload: oneCell(workload!, inputs.clients, "input 'clients'"),
    basis: `inputs base-ref ${inputs.baseRef} (good), head-ref ${inputs.headRef} (bad), workload ${workload!.name}`,
  };
}

/**
 * The issue of the event, trusted only when it is an issue (not a PR), opened by the token's own login,
 * and carries the series marker; then its pgperf:bisect marker is what is bisected.
 */
async function trustedIssueTarget(
  ctx: ActionContext,
  api: GitHubApi | undefined,
): Promise<{ issue: number; target: BisectTarget }> {
  const issue = ctx.payload.issue as IssuePayload | undefined;
  if (!issue || typeof issue.number !== 'number') {
    throw new UserError("mode bisect: the 'issues' event payload names no issue");
  }
  const where = `issue #${issue.number}`;
  if (issue.pull_request !== undefined) {
    throw new UserError(`mode bisect: ${where} is a pull request, not a pgperf regression issue`);
  }
  if (!api) {
    throw new UserError(
      `mode bisect on ${where} checks that pgperf opened it and comments the result: pass 'github-token' (default \${{ github.token }}) with issues: write`,
    );
  }
  let login: string;
  try {
    login = await api.viewerLogin();
  } catch (e) {
    throw new UserError(
      `mode bisect: cannot tell which login the token acts as (${errorMessage(e)}), so ${where} cannot be trusted`,
    );
  }
  const author = typeof issue.user?.login === 'string' ? issue.user.login : '';
  if (author !== login) {
    throw new UserError(
      `mode bisect: ${where} was opened by '${author}', not by '${login}' (the token's login that opens the regression issues); only pgperf's own regression issues are bisected`,
    );
  }
  const body = typeof issue.body === 'string' ? issue.body : '';
  const target = parseBisectMarker(body, where);
  if (!body.includes(seriesMarker(target.series))) {
    throw new UserError(
      `mode bisect: ${where} has no pgperf:series marker for series ${target.series}: it is not a pgperf regression issue`,
    );
  }
  return { issue: issue.number, target };
}

/**
 * The workload of the issue's series: among the input 'workloads' by name when the input is given, else
 * the shipped workload of that name.
 */
async function issueWorkload(
  name: string,
  inputs: ActionInputs,
  ctx: ActionContext,
  actionDir: string,
  where: string,
): Promise<Workload> {
  if (inputs.workloads.length > 0) {
    const loaded = await loadInputWorkloads(inputs, ctx, actionDir);
    const found = loaded.find((w) => w.name === name);
    if (found) return found;
    throw new UserError(
      `${where} regressed in workload '${name}', which is not among the input 'workloads' (${loaded.map((w) => w.name).join(', ')}): add the file of workload '${name}' to 'workloads'`,
    );
  }
  let file: string;
  try {
    file = workloadPath(name, ctx.workspace, actionDir);
  } catch (e) {
    throw new UserError(
      `${where} regressed in workload '${name}', which is not shipped with pgperf: set the input 'workloads' to its file (${errorMessage(e)})`,
    );
  }
  const workload = await loadWorkloadFile(file);
  if (workload.name !== name) {
    throw new UserError(
      `${where} regressed in workload '${name}', but the shipped file ${path.basename(file)} is named '${workload.name}': set the input 'workloads' to the file of '${name}'`,
    );
  }
  return workload;
}
