/**
 * The Action's `mode: benchmark`: the commits chosen from the event, the installs given or built, the
 * comparison's options read from the inputs (checked and made the pipeline's request in
 * src/flows/compare/options/comparison-options.ts), the comparison run; then its verdict published, or, for one
 * shard of a matrix, its part (shard-job.ts).
 */
import path from 'node:path';
import { UserError } from '../../../core/util/errors.js';
import { armSourceOf, type ArmNames } from '../../../flows/compare/options/arm-source.js';
import { commitfestCommits, describeCommit } from '../../../flows/compare/options/commit-choice.js';
import { comparisonOf, type ComparisonNames } from '../../../flows/compare/options/comparison-options.js';
import { runComparison } from '../../../flows/compare/compare-flow.js';
import {
  logArchive,
  type ArmSource,
  type PipelineOutcome,
} from '../../../flows/compare/pipeline/pipeline.js';
import { DEFAULT_SENTINEL_ROUNDS } from '../../../flows/compare/baseline/stored-baseline.js';
import { REPORT_FILE, pipelineDepsOf, type ActionDeps, type ActionMode } from '../action-deps.js';
import { workflowRepoUrl } from '../source-repo.js';
import { chooseCommits, type ActionContext } from '../context.js';
import type { Commits } from '../../../flows/compare/options/commit-choice.js';
import type { ActionInputs } from '../inputs.js';
import { publishComparison } from '../publish-comparison.js';
import { publishShard, runIdSeedOf } from '../shard-job.js';
import { openInputStore } from '../store-setup.js';
import { benchmarkTarget } from '../trusted-target.js';
import { loadInputWorkloads } from '../workloads.js';

/**
 * How the Action spells the options the comparison's and the arms' checks name (it has no schedule,
 * spending, settings, base patches or merge-base input).
 */
export const INPUT_NAMES: ComparisonNames & ArmNames = {
  maxRounds: "input 'max-rounds'",
  timeBudget: "input 'time-budget'",
  schedule: 'schedule',
  spending: 'spending',
  passAlpha: "input 'pass-alpha'",
  adaptive: "inputs 'max-rounds'/'time-budget'",
  fixedRounds: "input 'adaptive' false",
  rounds: "input 'rounds'",
  workloads: "input 'workloads'",
  clients: "input 'client-counts'",
  confirmRounds: "input 'confirm-rounds'",
  duration: "input 'duration'",
  baseline: "input 'baseline'",
  shard: "input 'shard'",
  seed: "input 'seed'",
  cpuDmaLatency: "input 'cpu-dma-latency'",
  governor: "input 'governor'",
  arms: "inputs 'base-bin-dir'/'head-bin-dir'",
  settings: 'settings',
  repo: "input 'repo'",
  commitfest: "input 'commitfest-entry'",
  base: "input 'base-ref'",
  head: "input 'head-ref'",
  basePatches: 'base patches',
  headPatches: "input 'patches'",
  mergeBase: 'merge-base',
};

export const runBenchmarkMode: ActionMode = async (inputs, ctx, deps, resultsDir) => {
  const outcome = await benchmark(inputs, ctx, deps, resultsDir);
  if (inputs.shard) return publishShard(outcome, ctx, deps, resultsDir, REPORT_FILE, inputs.failOn);
  const target = benchmarkTarget(ctx, outcome.result, inputs.prNumber);
  return publishComparison(outcome, target, inputs, ctx, deps, resultsDir);
};

async function benchmark(
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
  resultsDir: string,
): Promise<PipelineOutcome> {
  const { logger } = deps;
  const entry = inputs.commitfestEntry;
  const commits: Commits = entry
    ? {
        ...commitfestCommits(entry, inputs.baseRef),
        ...(inputs.prNumber !== undefined ? { prNumber: inputs.prNumber } : {}),
      }
    : await chooseCommits(ctx, inputs, deps.api);
  logger.info(`base: ${describeCommit(commits.base)}; head: ${describeCommit(commits.head)}`);
  const workloads = await loadInputWorkloads({ workloads: inputs.workloads }, ctx, deps.actionDir);
  const { request, stored } = comparisonOf(
    {
      arms: await armSource(commits, inputs, ctx, deps),
      workloads,
      ...(inputs.clientCounts ? { clients: inputs.clientCounts } : {}),
      ...(inputs.instructions !== undefined ? { instructions: inputs.instructions } : {}),
      ...(inputs.plans !== undefined ? { plans: inputs.plans } : {}),
      ...(inputs.shard ? { shard: inputs.shard, runIdSeed: runIdSeedOf(ctx) } : {}),
      seed: inputs.seed,
      baseline: inputs.baseline,
      storedBaseline: {
        allowFingerprintMismatch: false,
        sentinelRounds: DEFAULT_SENTINEL_ROUNDS,
        onDrift: 'inconclusive',
        names: { baseline: "input 'baseline'", duration: "input 'duration'" },
      },
      analysis: {
        alpha: inputs.alpha,
        thresholdPct: inputs.threshold,
        ...(inputs.steadyPass !== undefined ? { steadyPass: inputs.steadyPass } : {}),
      },
      adaptive: {
        ...(inputs.maxRounds !== undefined ? { maxRounds: inputs.maxRounds } : {}),
        ...(inputs.timeBudgetS !== undefined ? { timeBudgetS: inputs.timeBudgetS } : {}),
        ...(inputs.passAlpha !== undefined ? { passAlpha: inputs.passAlpha } : {}),
      },
      rounds: inputs.rounds,
      fixedRounds: !inputs.adaptive,
      durationS: inputs.duration,
      confirmRounds: inputs.confirmRounds,
      explain: inputs.explain,
      instructionCounter: { counter: inputs.instructionCounter },
      order: 'random',
      force: inputs.force,
      runAs: inputs.runAs,
      dataChecksums: false,
      controls: { cpuDmaLatencyUs: inputs.cpuDmaLatencyUs, governor: inputs.governor },
      source: {
        repository: `${ctx.owner}/${ctx.repo}`,
        ...(commits.prNumber ? { prNumber: commits.prNumber } : {}),
        ...(ctx.runUrl ? { runUrl: ctx.runUrl } : {}),
        base: { ref: commits.base.ref, sha: commits.base.sha, chosenBy: commits.base.chosenBy },
        head: { ref: commits.head.ref, sha: commits.head.sha, chosenBy: commits.head.chosenBy },
        ...(entry ? { commitfest: entry } : {}),
      },
    },
    INPUT_NAMES,
  );
  const { shard } = request;
  if (shard) {
    const cells = request.workloads.flatMap((w) => w.clients.map((c) => `${w.name}@${c}`)).join(', ');
    logger.info(
      `shard ${shard.index}/${shard.count} of plan ${shard.planId}, seed ${request.seed}: ${cells}`,
    );
  }
  const store = await openInputStore(inputs, ctx.workspace, deps);
  try {
    const outcome = await logger.group('Benchmark', () =>
      runComparison(
        { ...request, runDir: resultsDir },
        stored ? { ...stored, store: store!.reader } : undefined,
        pipelineDepsOf(deps),
        store?.archive,
      ),
    );
    logArchive(outcome, logger);
    return outcome;
  } finally {
    await store?.close();
  }
}

/** The installs: the bin-dir inputs, or base and head built from source (the arms' flow checks them). */
async function armSource(
  commits: Commits,
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
): Promise<ArmSource> {
  const { baseBinDir, headBinDir, commitfestEntry: entry } = inputs;
  const where = {
    defaultRepo: workflowRepoUrl(ctx),
    cwd: ctx.workspace,
    cacheDir: async () => deps.cacheDir,
  };
  if (baseBinDir && headBinDir) {
    const installed = [
      { label: 'base', binDir: path.resolve(baseBinDir) },
      { label: 'head', binDir: path.resolve(headBinDir) },
    ];
    return armSourceOf({ ...where, installed }, INPUT_NAMES);
  }
  if (!deps.build) {
    throw new UserError(
      "building PostgreSQL from source is not available here: set 'base-bin-dir' and 'head-bin-dir'",
    );
  }
  return armSourceOf(
    {
      ...where,
      repo: inputs.repo,
      // No merge-base asked: a PR's base is one already (from the API, recorded); an entry's always is.
      base: commits.base.sha ?? commits.base.ref,
      ...(entry ? { commitfest: entry } : { head: commits.head.sha ?? commits.head.ref }),
      headPatches: inputs.patches.map((p) => path.resolve(ctx.workspace, p)),
      buildOptions: inputs.buildOptions,
    },
    INPUT_NAMES,
  );
}
