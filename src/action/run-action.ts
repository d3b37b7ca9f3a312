/**
 * The action's pipeline, free of @actions/*: choose commits, get installs (built or given), run the
 * workloads interleaved, compare, then publish: report files, job summary, outputs, the sticky PR
 * comment and the commit status. GitHub API failures become warnings; the verdict still decides.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadWorkloadFile } from '../config/load-workload.js';
import type { Workload } from '../config/workload-schema.js';
import { compareRun } from '../compare/compare-run.js';
import type { OverallVerdict, RunComparison } from '../compare/types.js';
import { GitHubApiError, type CommitState, type GitHubApi } from '../github/api.js';
import { upsertStickyComment } from '../github/sticky-comment.js';
import { commentMarker, renderJobSummary, renderMarkdownReport } from '../report/markdown.js';
import { readResults } from '../results/read-results.js';
import type { RunResult } from '../results/types.js';
import { runBenchmark, type ArmSpec } from '../runner/run-loop.js';
import { UserError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { ProcessRunner } from '../util/process.js';
import { chooseCommits, type ActionContext, type Commits } from './context.js';
import type { ActionInputs } from './inputs.js';

export interface ActionIO {
  setOutput(name: string, value: string): void;
  writeSummary(markdown: string): Promise<void>;
}

export interface ActionDeps {
  logger: Logger;
  runner: ProcessRunner;
  io: ActionIO;
  /** Absent when no token was given (comment and status off). */
  api?: GitHubApi;
  /** Builds base and head from source when no bin dirs are given. */
  buildArms?: (commits: Commits, inputs: ActionInputs) => Promise<ArmSpec[]>;
  /** The action's own directory (for the shipped workloads). */
  actionDir: string;
  signal?: AbortSignal;
}

export interface ActionOutcome {
  verdict: OverallVerdict;
  /** Set when the step must fail (fail-on), with the reason. */
  failure?: string;
  resultsFile: string;
  reportFile: string;
}

export const RESULTS_FILE = 'results.json';
export const REPORT_FILE = 'report.md';

export async function runAction(
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
): Promise<ActionOutcome> {
  const resultsDir = path.resolve(ctx.workspace, inputs.resultsDir);
  const resultsFile = path.join(resultsDir, RESULTS_FILE);
  const result =
    inputs.mode === 'comment'
      ? await readResults(resultsFile)
      : await benchmark(inputs, ctx, deps, resultsFile, path.join(resultsDir, 'logs'));
  return publish(result, inputs, ctx, deps, resultsDir);
}

async function benchmark(
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
  resultsFile: string,
  logsDir: string,
): Promise<RunResult> {
  const { logger } = deps;
  const commits = await chooseCommits(ctx, inputs, deps.api);
  logger.info(`base: ${describeCommit(commits.base)}; head: ${describeCommit(commits.head)}`);
  const workloads: Workload[] = [];
  for (const w of inputs.workloads.length ? inputs.workloads : ['select-only']) {
    workloads.push(await loadWorkloadFile(workloadPath(w, ctx.workspace, deps.actionDir)));
  }
  const arms = await logger.group('Build', () => armsFor(commits, inputs, deps));
  return logger.group('Benchmark', () =>
    runBenchmark(
      {
        arms,
        workloads,
        rounds: inputs.rounds,
        durationS: inputs.duration,
        order: 'random',
        runAs: inputs.runAs,
        resultsFile,
        logsDir,
        dataChecksums: false,
        source: {
          repository: `${ctx.owner}/${ctx.repo}`,
          ...(commits.prNumber ? { prNumber: commits.prNumber } : {}),
          base: { ref: commits.base.ref, sha: commits.base.sha, chosenBy: commits.base.chosenBy },
          head: { ref: commits.head.ref, sha: commits.head.sha, chosenBy: commits.head.chosenBy },
        },
      },
      { runner: deps.runner, logger, signal: deps.signal },
    ),
  );
}

async function armsFor(commits: Commits, inputs: ActionInputs, deps: ActionDeps): Promise<ArmSpec[]> {
  if (inputs.baseBinDir && inputs.headBinDir) {
    return [
      { label: 'base', binDir: path.resolve(inputs.baseBinDir), settings: {} },
      { label: 'head', binDir: path.resolve(inputs.headBinDir), settings: {} },
    ];
  }
  if (!deps.buildArms) {
    throw new UserError(
      "building PostgreSQL from source is not available here: set 'base-bin-dir' and 'head-bin-dir'",
    );
  }
  return deps.buildArms(commits, inputs);
}

/** A bare name (select-only) is a workload shipped with the action; anything else a path in the workspace. */
export function workloadPath(name: string, workspace: string, actionDir: string): string {
  if (/^[A-Za-z0-9._-]+$/.test(name) && !name.endsWith('.yml') && !name.endsWith('.yaml')) {
    return path.join(actionDir, 'workloads', `${name}.yml`);
  }
  return path.resolve(workspace, name);
}

async function publish(
  result: RunResult,
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
  resultsDir: string,
): Promise<ActionOutcome> {
  const { logger, io } = deps;
  const comparison = compareRun(result, { alpha: inputs.alpha, thresholdPct: inputs.threshold });
  const source = result.source ?? {};
  const reportInput = {
    result,
    comparison,
    base: { label: 'base', ...source.base },
    head: { label: 'head', ...source.head },
    runUrl: ctx.runUrl,
  };
  const report = renderMarkdownReport({ ...reportInput, commentId: inputs.commentId });
  await mkdir(resultsDir, { recursive: true });
  const reportFile = path.join(resultsDir, REPORT_FILE);
  await writeFile(reportFile, report);
  // The summary has a 1 MiB budget, so it keeps the details a comment may have to trim.
  await io.writeSummary(renderJobSummary(reportInput));

  const failure = gateFailure(comparison, inputs.failOn);
  const worst = worstDelta(comparison);
  io.setOutput('verdict', comparison.verdict);
  io.setOutput('worst-delta', worst === undefined ? '' : worst.toFixed(2));
  io.setOutput('results-json', path.join(resultsDir, RESULTS_FILE));
  io.setOutput('report-markdown', reportFile);
  logger.info(
    `verdict: ${comparison.verdict}${worst === undefined ? '' : ` (worst delta ${worst.toFixed(2)}%)`}`,
  );

  const api = deps.api;
  const prNumber = inputs.prNumber ?? source.prNumber;
  if (api && inputs.comment) {
    if (prNumber === undefined) {
      logger.info('no pull request to comment on (not a pull_request event and no pr-number input)');
    } else {
      await tolerateApiError(logger, 'pull-requests: write (or issues: write)', async () => {
        const done = await upsertStickyComment(api, {
          issueNumber: prNumber,
          marker: commentMarker(inputs.commentId),
          body: report,
        });
        logger.info(`${done.action} the comment on #${prNumber} (id ${done.comment.id})`);
      });
    }
  }
  const headSha = source.head?.sha ?? (inputs.mode === 'benchmark' ? ctx.sha : undefined);
  if (api && inputs.commitStatus && headSha) {
    await tolerateApiError(logger, 'statuses: write', () =>
      api.setCommitStatus(headSha, {
        state: statusState(failure),
        context: `pgperf/${inputs.commentId}`,
        description: statusDescription(comparison, worst),
        targetUrl: ctx.runUrl,
      }),
    );
  }
  return {
    verdict: comparison.verdict,
    failure,
    resultsFile: path.join(resultsDir, RESULTS_FILE),
    reportFile,
  };
}

/** Why the step fails under `fail-on`, or undefined when it passes. */
export function gateFailure(comparison: RunComparison, failOn: ActionInputs['failOn']): string | undefined {
  const v = comparison.verdict;
  if (failOn === 'never') return undefined;
  if (v === 'regression' || v === 'mixed')
    return `performance ${v === 'mixed' ? 'regressed in some cells' : 'regressed'} (fail-on: ${failOn})`;
  if (failOn === 'inconclusive' && v === 'inconclusive')
    return 'the comparison is inconclusive (fail-on: inconclusive)';
  return undefined;
}

/** The most adverse delta % over all cells (most negative for TPS), or undefined without data. */
export function worstDelta(comparison: RunComparison): number | undefined {
  const sign = comparison.better === 'higher' ? 1 : -1;
  let worst: number | undefined;
  for (const arm of comparison.comparisons) {
    for (const cell of arm.cells) {
      const d = cell.deltaPct;
      if (d === null || d === undefined || !Number.isFinite(d)) continue;
      if (worst === undefined || sign * d < sign * worst) worst = d;
    }
  }
  return worst;
}

function statusState(failure: string | undefined): CommitState {
  if (failure) return 'failure';
  return 'success';
}

function statusDescription(comparison: RunComparison, worst: number | undefined): string {
  const words: Record<OverallVerdict, string> = {
    regression: 'Regression',
    improvement: 'Improvement',
    'no-change': 'No change',
    inconclusive: 'Inconclusive',
    mixed: 'Mixed',
  };
  return `${words[comparison.verdict]}${worst === undefined ? '' : `; worst delta ${worst >= 0 ? '+' : ''}${worst.toFixed(1)}%`}`;
}

function describeCommit(c: { ref?: string; sha?: string; chosenBy: string }): string {
  return [c.ref, c.sha?.slice(0, 12)].filter(Boolean).join(' @ ') + ` (${c.chosenBy})`;
}

/** Runs a GitHub call; a failure is a warning naming the permission the workflow probably lacks. */
async function tolerateApiError(logger: Logger, permission: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    if (!(e instanceof GitHubApiError)) throw e;
    const hint =
      e.status === 403
        ? ` The token lacks '${permission}' (a fork's pull_request token is read-only: use the two-workflow pattern in the README).`
        : e.status === 404
          ? ` Not found: check the repository and the token's access ('${permission}').`
          : '';
    logger.warn(`${e.message}.${hint} The results are saved and the verdict still decides the step.`);
  }
}
