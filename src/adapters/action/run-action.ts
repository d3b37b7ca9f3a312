/**
 * The action's pipeline, free of @actions/*: choose commits, get installs (built or given), run the
 * workloads interleaved, compare, then publish: report files, job summary, outputs, the sticky PR
 * comment and the commit status. GitHub API failures become warnings; the verdict still decides.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { checkWritableDirectory } from '../../machine/os/writable-dir.js';
import path from 'node:path';
import type { RunComparison } from '../../core/compare/types.js';
import { headlineText } from '../../core/compare/decision.js';
import { renderJobSummary, renderMarkdownReport } from '../../core/report/markdown.js';
import { markdownLink } from '../../core/report/markdown-escape.js';
import { postToGitHub } from './github-publish.js';
import { analyse, resolveAnalysis } from '../../flows/compare/analysis.js';
import {
  RESULTS_FILE,
  logArchive,
  type ArmSource,
  type PipelineOutcome,
} from '../../flows/compare/pipeline.js';
import { reportInputOf } from '../../flows/compare/report-input.js';
import { readResults } from '../../store/read-results.js';
import type { RunResult } from '../../core/results/types.js';
import { UserError, errorMessage } from '../../core/util/errors.js';
import { planAdaptive } from '../../core/compare/adaptive.js';
import { roundSeconds } from '../../run/round-seconds.js';
import type { ActionDeps, ActionMode, ActionOutcome } from './action-deps.js';
import { REPORT_FILE, pipelineDepsOf } from './action-deps.js';
import { buildRequestFor } from './build-arms.js';
import { outcomeOf, setDecisionOutputs, statusOf } from './gate.js';
import { writeDecision } from '../../flows/compare/decide-run.js';
import { loadInputWorkloads } from './workloads.js';
import { chooseCommits, type ActionContext, type Commits } from './context.js';
import type { ActionInputs } from './inputs.js';
import { openInputStore } from './store-setup.js';
import { DEFAULT_SENTINEL_ROUNDS } from '../../flows/compare/stored-baseline.js';
import { checkBaselineDesign, runComparison } from '../../flows/compare/compare-flow.js';
import { publishShard, shardOfInputs } from './shard-job.js';
import { runConsolidate } from './consolidate-mode.js';
import { benchmarkTarget, commentTarget, type PublishTarget } from './trusted-target.js';
import { runNightlyMode } from './nightly-mode.js';
import { runCalibrateMode } from './calibrate-mode.js';
import { runBisectMode } from './bisect-mode.js';
import { runCommandMode, PENDING_NOTE } from './command-mode.js';
import { acceptancesFor } from './acceptances.js';
import { triggerOf, triggerText } from './trigger.js';
import { decideRun } from '../../flows/compare/decide-run.js';
import type { Decision } from '../../core/compare/decision.js';
import { renderAcceptances } from '../../core/report/acceptance-markdown.js';
import { underHeadline } from '../../core/report/headline-notes.js';
import {
  commentStateOf,
  readCommentState,
  withCommentState,
  type CommentState,
} from '../../core/report/comment-state.js';
import type { Workload } from '../../drivers/workload.js';

const commentMode: ActionMode = async (inputs, ctx, deps, resultsDir) => {
  const resultsFile = path.join(resultsDir, RESULTS_FILE);
  // A fork's artifact: checked as every results document is (duplicate samples, undeclared arms, ...).
  const result = await readResults(resultsFile, { warn: (m) => deps.logger.warn(m) });
  const target = await commentTarget(ctx, result, inputs.prNumber, deps.api, resultsFile, inputs.headRef);
  deps.logger.info(`comment mode: publishing for ${target.basis}`);
  // The benchmark job chose the analysis settings and recorded them; the comment job reports with them.
  return publish(result, analyse(result), target, inputs, ctx, deps, resultsDir);
};

const benchmarkMode: ActionMode = async (inputs, ctx, deps, resultsDir) => {
  const outcome = await benchmark(inputs, ctx, deps, resultsDir);
  if (inputs.shard) return publishShard(outcome, ctx, deps, resultsDir, REPORT_FILE, inputs.failOn);
  const target = benchmarkTarget(ctx, outcome.result, inputs.prNumber);
  return publish(outcome.result, outcome.comparison, target, inputs, ctx, deps, resultsDir);
};

async function benchmark(
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
  resultsDir: string,
): Promise<PipelineOutcome> {
  const { logger } = deps;
  const commits = await chooseCommits(ctx, inputs, deps.api);
  logger.info(`base: ${describeCommit(commits.base)}; head: ${describeCommit(commits.head)}`);
  const workloads = withClientCounts(
    await loadInputWorkloads(inputs, ctx, deps.actionDir),
    inputs.clientCounts,
  );
  const sharded = inputs.shard ? shardOfInputs(inputs, ctx, workloads) : undefined;
  if (sharded) {
    logger.info(
      `shard ${sharded.shard.index}/${sharded.shard.count} of plan ${sharded.shard.planId}, seed ${sharded.seed}: ${sharded.workloads.flatMap((w) => w.clients.map((c) => `${w.name}@${c}`)).join(', ')}`,
    );
  }
  const arms = await armSource(commits, inputs, ctx, deps);
  const store = await openInputStore(inputs, ctx.workspace, deps);
  const analysis = resolveAnalysis({
    alpha: inputs.alpha,
    thresholdPct: inputs.threshold,
    ...(inputs.steadyPass !== undefined ? { steadyPass: inputs.steadyPass } : {}),
  });
  const adaptive = adaptiveFromInputs(
    inputs,
    analysis.alpha,
    roundSeconds(sharded?.workloads ?? workloads, 2, inputs.duration),
  );
  checkBaselineDesign(inputs.baseline, adaptive !== undefined, {
    baseline: "input 'baseline'",
    adaptive: "inputs 'max-rounds'/'time-budget'",
    rounds: "'rounds'",
  });
  const request = {
    arms,
    workloads: sharded?.workloads ?? workloads,
    ...(sharded ? { shard: sharded.shard } : {}),
    ...((sharded?.seed ?? inputs.seed) !== undefined ? { seed: sharded?.seed ?? inputs.seed } : {}),
    analysis,
    ...(adaptive ? { adaptive } : {}),
    rounds: inputs.rounds,
    durationS: inputs.duration,
    ...(inputs.confirmRounds !== undefined ? { confirmRounds: inputs.confirmRounds } : {}),
    explain: inputs.explain,
    instructionCounter: { counter: inputs.instructionCounter },
    order: 'random' as const,
    // Refused before the builds unless forced; a stored baseline measures in parts and only warns.
    planCheck: inputs.force || inputs.baseline.kind !== 'same-job' ? ('warn' as const) : ('refuse' as const),
    runAs: inputs.runAs,
    runDir: resultsDir,
    dataChecksums: false,
    ...(inputs.cpuDmaLatencyUs !== undefined || inputs.governor !== undefined
      ? {
          controls: {
            ...(inputs.cpuDmaLatencyUs !== undefined ? { cpuDmaLatencyUs: inputs.cpuDmaLatencyUs } : {}),
            ...(inputs.governor !== undefined ? { governor: inputs.governor } : {}),
            fields: { cpuDmaLatency: "input 'cpu-dma-latency'", governor: "input 'governor'" },
          },
        }
      : {}),
    source: {
      repository: `${ctx.owner}/${ctx.repo}`,
      ...(commits.prNumber ? { prNumber: commits.prNumber } : {}),
      ...(ctx.runUrl ? { runUrl: ctx.runUrl } : {}),
      base: { ref: commits.base.ref, sha: commits.base.sha, chosenBy: commits.base.chosenBy },
      head: { ref: commits.head.ref, sha: commits.head.sha, chosenBy: commits.head.chosenBy },
    },
  };
  const pipelineDeps = pipelineDepsOf(deps, store);
  try {
    const stored =
      inputs.baseline.kind === 'stored'
        ? {
            ...(inputs.baseline.ref !== undefined ? { ref: inputs.baseline.ref } : {}),
            store: store!.reader,
            allowFingerprintMismatch: false,
            sentinelRounds: DEFAULT_SENTINEL_ROUNDS,
            onDrift: 'inconclusive' as const,
            names: { baseline: "input 'baseline'", duration: "input 'duration'" },
          }
        : undefined;
    const outcome = await logger.group('Benchmark', () => runComparison(request, stored, pipelineDeps));
    logArchive(outcome, logger);
    return outcome;
  } finally {
    await store?.close();
  }
}

async function armSource(
  commits: Commits,
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
): Promise<ArmSource> {
  if (inputs.baseBinDir && inputs.headBinDir) {
    return {
      kind: 'installed',
      arms: [
        { label: 'base', binDir: path.resolve(inputs.baseBinDir), settings: {} },
        { label: 'head', binDir: path.resolve(inputs.headBinDir), settings: {} },
      ],
    };
  }
  if (!deps.build) {
    throw new UserError(
      "building PostgreSQL from source is not available here: set 'base-bin-dir' and 'head-bin-dir'",
    );
  }
  return { kind: 'build', request: await buildRequestFor(ctx, commits, inputs, deps.cacheDir) };
}

/** The adaptive design of the inputs max-rounds / time-budget (errors name the inputs), or undefined. */
function adaptiveFromInputs(inputs: ActionInputs, alpha: number, roundS: number) {
  if (inputs.maxRounds === undefined && inputs.timeBudgetS === undefined) return undefined;
  if (inputs.rounds !== undefined) {
    throw new UserError(
      "inputs 'rounds' and 'max-rounds'/'time-budget' both set: adaptive runs take their rounds from the looks",
    );
  }
  let plan;
  try {
    plan = planAdaptive({
      alpha,
      ...(inputs.maxRounds !== undefined ? { maxRounds: inputs.maxRounds } : {}),
      ...(inputs.passAlpha !== undefined ? { passAlpha: inputs.passAlpha } : {}),
    });
  } catch (e) {
    throw new UserError(`input 'max-rounds': ${errorMessage(e)}`);
  }
  if (inputs.timeBudgetS !== undefined && inputs.timeBudgetS < roundS) {
    throw new UserError(
      `input 'time-budget' (${inputs.timeBudgetS} s) is less than one round (about ${Math.ceil(roundS)} s for every cell and arm)`,
    );
  }
  return { plan, ...(inputs.timeBudgetS !== undefined ? { timeBudgetS: inputs.timeBudgetS } : {}) };
}

async function publish(
  result: RunResult,
  comparison: RunComparison,
  target: PublishTarget,
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
  resultsDir: string,
): Promise<ActionOutcome> {
  const { logger, io } = deps;
  const accepted = await acceptancesFor(target, inputs, deps);
  const reportInput = reportInputOf(result, comparison, {
    decision: decideRun(result, comparison, inputs.failOn, accepted),
    ...(ctx.runUrl ? { fallbackRunUrl: ctx.runUrl } : {}),
  });
  const { decision } = reportInput;
  const state = target.headSha ? commentStateOf(decision, target.headSha, ctx.runId) : undefined;
  const notes = publishNotes(decision, target, ctx);
  const rendered = underHeadline(
    renderMarkdownReport({ ...reportInput, commentId: inputs.commentId }),
    notes,
  );
  const report = state ? withCommentState(rendered, state) : rendered;
  await mkdir(resultsDir, { recursive: true });
  const reportFile = path.join(resultsDir, REPORT_FILE);
  await writeFile(reportFile, report);
  // The summary has a 1 MiB budget, so it keeps the details a comment may have to trim.
  await io.writeSummary(underHeadline(renderJobSummary(reportInput), notes, 0));
  const decisionFile = await writeDecision(resultsDir, decision);
  setDecisionOutputs(io, decision, comparison, decisionFile);
  io.setOutput('results-json', path.join(resultsDir, RESULTS_FILE));
  io.setOutput('report-markdown', reportFile);
  logger.info(`${decision.outcome}: ${headlineText(decision)}`);

  await postToGitHub(
    {
      // A run that did not finish never replaces an earlier verdict: it is noted above it instead.
      body: (existing) => {
        // A run that did not finish never replaces an earlier verdict: it is noted above it instead.
        if (result.status !== 'complete') {
          return existing ? supersededNote(existing, result, reportInput.runUrl) : report;
        }
        if (inputs.commentOn === 'change' && existing && state && !isNews(existing, state)) {
          logger.info(
            `comment-on change: the decision is still ${decision.outcome} (${decision.verdict}); the comment is left as it is`,
          );
          return undefined;
        }
        return report;
      },
      status: statusOf(decision, reportInput.runUrl),
    },
    target,
    inputs,
    deps,
  );
  return outcomeOf(decision, path.join(resultsDir, RESULTS_FILE), reportFile);
}

/** The earlier comment, kept, under a note that a later run did not finish. */
function supersededNote(existing: string, result: RunResult, runUrl: string | undefined): string {
  const lines = existing.split('\n');
  const marker = lines[0]!.startsWith('<!--') ? lines.shift()! : '';
  const kept = lines.filter((l) => !l.startsWith('> ⚠️ **A later run'));
  const link = runUrl ? ` (${markdownLink('run', runUrl)})` : '';
  const note = `> ⚠️ **A later run was ${result.status}**${link} before it finished; the verdict below is from the earlier complete run.`;
  return [marker, note, ...kept].filter((l, i) => i > 0 || l !== '').join('\n');
}

/** What started the run and which commit it measured, and the accepted trade-offs: said under the headline. */
function publishNotes(decision: Decision, target: PublishTarget, ctx: ActionContext): string {
  const trigger = triggerOf(ctx);
  const moved = target.movedTo
    ? `; measured head ${target.headSha!.slice(0, 12)} as it was at the command: the PR head has since moved to ${target.movedTo.slice(0, 12)}, so this result is not about the current head`
    : ctx.eventName === 'issue_comment' && target.headSha
      ? `; measured head ${target.headSha.slice(0, 12)}, the PR head at the command`
      : '';
  const lines = trigger || moved ? [`_Triggered by ${triggerText(trigger)}${moved}._`] : [];
  const accepted = renderAcceptances(decision);
  return [...lines, ...(accepted ? [accepted] : [])].join('\n');
}

/** Whether the decision differs from the one the existing comment shows (or the comment awaits a run). */
function isNews(existing: string, state: CommentState): boolean {
  const before = readCommentState(existing);
  if (!before || existing.split('\n').some((l) => l.startsWith(PENDING_NOTE))) return true;
  return before.outcome !== state.outcome || before.verdict !== state.verdict || before.sha !== state.sha;
}

/** The workloads with `clients` (input client-counts) instead of their own client counts. */
function withClientCounts(workloads: Workload[], clients: number[] | undefined): Workload[] {
  return clients ? workloads.map((w) => ({ ...w, clients: [...clients] })) : workloads;
}

function describeCommit(c: { ref?: string; sha?: string; chosenBy: string }): string {
  return [c.ref, c.sha?.slice(0, 12)].filter(Boolean).join(' @ ') + ` (${c.chosenBy})`;
}

/** A mode: what it does, for the log and the docs, and the flow it runs (the results dir resolved). */
interface ModeEntry {
  does: string;
  run: ActionMode;
}

/** The Action's modes, one row each: input `mode` -> the flow it runs. */
const MODE_TABLE: Record<ActionInputs['mode'], ModeEntry> = {
  benchmark: { does: 'build, run, decide and publish (a shard publishes its part)', run: benchmarkMode },
  comment: { does: "publish an earlier benchmark job's results (fork PRs)", run: commentMode },
  consolidate: { does: 'decide over the shards of a matrix and publish', run: runConsolidate },
  nightly: { does: 'measure the branch head into the store, find change points', run: runNightlyMode },
  calibrate: { does: "an A/A run: this runner's noise and false alarms", run: runCalibrateMode },
  bisect: { does: 'the first bad commit of a regression', run: runBisectMode },
  command: {
    does: 'a /pgperf PR comment: permission, reaction, the request as outputs',
    run: runCommandMode,
  },
};

export async function runAction(
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
): Promise<ActionOutcome> {
  const mode = MODE_TABLE[inputs.mode];
  deps.logger.debug(`mode ${inputs.mode}: ${mode.does}`);
  const resultsDir = path.resolve(ctx.workspace, inputs.resultsDir);
  await checkActionDirs(inputs, resultsDir, deps.cacheDir);
  return mode.run(inputs, ctx, deps, resultsDir);
}

/**
 * The directories a mode writes, created and proven writable before anything is built or started: results-dir
 * (every mode but command), and the build cache of a mode that builds PostgreSQL.
 */
async function checkActionDirs(inputs: ActionInputs, resultsDir: string, cacheDir: string): Promise<void> {
  if (inputs.mode === 'command') return;
  await checkWritableDirectory(resultsDir, {
    what: "input 'results-dir'",
    expected: 'a directory for the results (created if missing)',
  });
  const builds =
    inputs.mode === 'bisect' ||
    ((inputs.mode === 'benchmark' || inputs.mode === 'nightly') && !inputs.baseBinDir && !inputs.headBinDir);
  if (!builds) return;
  await checkWritableDirectory(cacheDir, {
    what: inputs.cacheDir
      ? "input 'cache-dir'"
      : "the build cache (default; input 'cache-dir' to choose another)",
    expected: 'a directory for the build cache (created if missing)',
    public: true,
  });
}
