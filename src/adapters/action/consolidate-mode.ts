/**
 * `mode: consolidate`: the shards of a matrix (input `shard` in each benchmark job) as one verdict. Gathers
 * their results.json files under results-dir (downloaded artifacts, searched recursively) and/or their runs
 * in the store (this head commit, plan and seed), waits up to wait-timeout for missing shards, consolidates
 * them (src/flows/consolidate: same comparison, grouped by machine class, Holm across each class's cells)
 * and posts one sticky comment and one commit status. The PR and the commit come from the event
 * (trusted-target.ts), never from the results: a shard that names another commit or PR is refused. The
 * maintainers' accepted trade-offs (`/pgperf accept`) count here as in mode benchmark, and the comment
 * carries the decision's state, so that a maintainer can accept a regression it shows (re-run this job to
 * apply it).
 */
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { headlineText } from '../../core/compare/decision.js';
import { consolidateShards } from '../../flows/consolidate/consolidate.js';
import {
  findResultsFiles,
  outstandingShards,
  readShardFiles,
  selectShards,
  shardsInStore,
  waitForShards,
  type ShardSelection,
} from '../../flows/consolidate/gather-shards.js';
import {
  consolidatedReportInput,
  judgeConsolidation,
  type JudgedConsolidation,
} from '../../flows/consolidate/consolidation.js';
import {
  renderConsolidatedComment,
  renderConsolidatedSummary,
} from '../../core/report/consolidated-markdown.js';
import { UserError } from '../../core/util/errors.js';
import type { ActionContext } from './context.js';
import { postToGitHub } from './github-publish.js';
import type { ActionInputs } from './inputs.js';
import { REPORT_FILE, type ActionDeps, type ActionMode, type ActionOutcome } from './action-deps.js';
import { outcomeOf, setDecisionOutputs, statusOf } from './gate.js';
import { writeDecision } from '../../flows/compare/decide-run.js';
import { openActionStore } from './store-setup.js';
import { checkClaims, eventTarget } from './trusted-target.js';
import { acceptancesFor } from '../../flows/compare/acceptances.js';
import { renderAcceptances } from '../../core/report/acceptance-markdown.js';
import { commentStateOf, withCommentState } from '../../core/report/comment-state.js';
import { underHeadline } from '../../core/report/headline-notes.js';

/** How often the store is asked again while shards are missing. */
const POLL_S = 10;

export const runConsolidate: ActionMode = async (inputs, ctx, deps, resultsDir) => {
  const { logger } = deps;
  const target = await eventTarget(ctx, inputs.prNumber, deps.api, 'mode consolidate');
  const headSha = target.headSha!;
  logger.info(`consolidate mode: publishing for ${target.basis}`);
  const useStore = Boolean(inputs.store || inputs.storeBranch);
  if (useStore && !deps.stores) {
    throw new UserError("inputs 'store'/'store-branch' are set but this runner cannot open a store");
  }
  // The shards of one workflow run share its seed (the default of input 'seed' in every job).
  const seed = inputs.seed ?? (ctx.runId && /^[1-9]\d*$/.test(ctx.runId) ? Number(ctx.runId) : undefined);
  const fromStore = async () => {
    const store = await openActionStore(inputs, ctx.workspace, deps.stores!, deps);
    try {
      return await shardsInStore(store!.reader, {
        headSha,
        ...(inputs.planId ? { planId: inputs.planId } : {}),
        ...(seed !== undefined ? { seed } : {}),
      });
    } finally {
      await store?.close();
    }
  };
  const gather = async (): Promise<ShardSelection> => {
    const files = await readShardFiles(await findResultsFiles(resultsDir), logger);
    return selectShards(files, useStore ? await fromStore() : [], inputs.planId);
  };
  const { selection, outstanding } =
    useStore && inputs.waitTimeoutS > 0
      ? await waitForShards(
          gather,
          { timeoutS: inputs.waitTimeoutS, pollS: POLL_S },
          { logger, sleep, now: Date.now, ...(deps.signal ? { signal: deps.signal } : {}) },
        )
      : await gather().then((s) => ({ selection: s, outstanding: outstandingShards(s.shards) }));
  for (const note of selection.notes) logger.info(note);
  if (selection.shards.length === 0) {
    const where = [
      `results.json under ${resultsDir}`,
      ...(useStore
        ? [
            `shard runs in the store for head ${headSha.slice(0, 12)}${inputs.planId ? `, plan ${inputs.planId}` : ''}${seed !== undefined ? `, seed ${seed}` : ''}${inputs.waitTimeoutS > 0 ? ` (waited ${inputs.waitTimeoutS} s)` : ''}`,
          ]
        : []),
    ];
    throw new UserError(
      `mode consolidate: no shards found (looked for ${where.join(' and ')}); the benchmark jobs need the input 'shard' (and 'store', or an uploaded results-dir downloaded here)`,
    );
  }
  if (outstanding.length > 0) logger.warn(`consolidating without ${outstanding.join('; ')}`);
  for (const s of selection.shards) checkClaims(s.result, target, s.file);
  logger.info(`consolidating ${selection.shards.map((s) => s.file).join(', ')}`);
  const accepted = await acceptancesFor(target, inputs, deps);
  const judged = judgeConsolidation(consolidateShards(selection.shards), inputs.failOn, accepted);
  return publishConsolidation(judged, inputs, ctx, deps, resultsDir, target);
};

async function publishConsolidation(
  judged: JudgedConsolidation,
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
  resultsDir: string,
  target: Awaited<ReturnType<typeof eventTarget>>,
): Promise<ActionOutcome> {
  const { logger, io } = deps;
  const report = consolidatedReportInput(judged, ctx.runUrl);
  const notes = renderAcceptances(judged.decision);
  const comment = withCommentState(
    underHeadline(renderConsolidatedComment(report, inputs.commentId), notes),
    commentStateOf(judged.decision, target.headSha!, ctx.runId),
  );
  await mkdir(resultsDir, { recursive: true });
  const reportFile = path.join(resultsDir, REPORT_FILE);
  await writeFile(reportFile, comment);
  // One merged document per machine class (plan.shard.index 0), readable by `pgperf compare`.
  const resultsFiles: string[] = [];
  for (const c of judged.classes) {
    const file = path.join(resultsDir, `consolidated-${c.fingerprint}.json`);
    await writeFile(file, `${JSON.stringify(c.result, null, 2)}\n`);
    resultsFiles.push(file);
  }
  await io.writeSummary(underHeadline(renderConsolidatedSummary(report), notes, 0));

  const { decision } = judged;
  const decisionFile = await writeDecision(resultsDir, decision);
  setDecisionOutputs(
    io,
    decision,
    judged.classes.map((c) => c.comparison),
    decisionFile,
  );
  io.setOutput('results-json', resultsFiles.join('\n'));
  io.setOutput('report-markdown', reportFile);
  const n = judged.classes.length;
  logger.info(
    `${decision.outcome} over ${n} machine class${n === 1 ? '' : 'es'}, plan ${judged.planId}: ${headlineText(decision)}`,
  );
  await postToGitHub(
    {
      body: comment,
      status: statusOf(decision, ctx.runUrl),
    },
    target,
    inputs,
    deps,
  );
  return outcomeOf(decision, resultsFiles[0]!, reportFile);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
