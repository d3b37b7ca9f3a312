/**
 * Publishing a consolidation's verdict, as publish/publish.ts publishes a comparison's: the maintainers'
 * accepted trade-offs (`/pgperf accept`) counted, the shards judged (consolidated-decision.ts), the comment (with
 * the decision's state, so that a maintainer can accept a regression it shows; re-running the job applies
 * it), one merged document per machine class and decision.json written, the job summary, the outputs, then
 * one sticky comment and one commit status on the target GitHub vouches for.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { headlineText, type Decision } from '../../core/compare/decision/decision.js';
import { renderAcceptances } from '../../core/report/markdown/acceptance-markdown.js';
import { commentStateOf, withCommentState } from '../../core/report/comment/comment-state.js';
import {
  renderConsolidatedComment,
  renderConsolidatedSummary,
} from '../../core/report/markdown/consolidated-markdown.js';
import { underHeadline } from '../../core/report/headline-notes.js';
import { acceptancesFor } from '../publish/acceptances.js';
import { writeDecision } from '../compare/pipeline/decide-run.js';
import { postToGitHub, statusOf, type PostDeps } from '../publish/github-post.js';
import { REPORT_FILE, type OutputSide, type Publishing } from '../publish/publish.js';
import { consolidateShards, type ShardFile } from './shard-merge.js';
import { consolidatedReportInput, judgeConsolidation } from './consolidated-decision.js';

/**
 * Publishes the verdict over `shards` (see the module comment); the decision, the first machine class's
 * merged document and the report are returned for the step's outcome.
 */
export async function publishConsolidation(
  shards: ShardFile[],
  publishing: Publishing,
  side: OutputSide,
  deps: PostDeps,
): Promise<{ decision: Decision; resultsFile: string; reportFile: string }> {
  const { logger } = deps;
  const { resultsDir, target } = publishing;
  const accepted = await acceptancesFor(target, publishing.post, deps);
  const judged = judgeConsolidation(consolidateShards(shards), publishing.failOn, accepted);
  const report = consolidatedReportInput(judged, publishing.runUrl);
  const notes = renderAcceptances(judged.decision);
  const comment = withCommentState(
    underHeadline(renderConsolidatedComment(report, publishing.post.commentId), notes),
    commentStateOf(judged.decision, target.headSha!, publishing.runId),
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
  await side.writeSummary(underHeadline(renderConsolidatedSummary(report), notes, 0));

  const { decision } = judged;
  const decisionFile = await writeDecision(resultsDir, decision);
  const comparisons = judged.classes.map((c) => c.comparison);
  side.setOutputs(decision, comparisons, { decisionFile, resultsFiles, reportFile });
  const n = judged.classes.length;
  logger.info(
    `${decision.outcome} over ${n} machine class${n === 1 ? '' : 'es'}, plan ${judged.planId}: ${headlineText(decision)}`,
  );
  await postToGitHub(
    { body: comment, status: statusOf(decision, publishing.runUrl) },
    target,
    publishing.post,
    deps,
  );
  return { decision, resultsFile: resultsFiles[0]!, reportFile };
}
