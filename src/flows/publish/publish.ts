/**
 * Publishing a comparison's verdict, the one sequence of the Action's benchmark and comment modes: the
 * accepted trade-offs read, the decision made, the report (the PR comment's markdown) and decision.json
 * written, the job summary, the outputs, then the sticky comment and the commit status (github-post.ts) on
 * the target GitHub vouches for (publish-target.ts). The summary and the outputs are the adapter's, behind
 * `OutputSide`; the rules of what is written and posted are here.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { headlineText, type Decision } from '../../core/compare/decision/decision.js';
import type { FailOn } from '../../core/compare/decision/policy.js';
import type { RunComparison } from '../../core/compare/comparison-types.js';
import { renderAcceptances } from '../../core/report/markdown/acceptance-markdown.js';
import {
  commentStateOf,
  readCommentState,
  withCommentState,
  type CommentState,
} from '../../core/report/comment/comment-state.js';
import { underHeadline } from '../../core/report/headline-notes.js';
import { renderJobSummary, renderMarkdownReport } from '../../core/report/markdown/markdown.js';
import { supersededNote } from '../../core/report/comment/superseded-note.js';
import type { RunResult } from '../../core/results/result-types.js';
import { acceptancesFor } from './acceptances.js';
import { decideRun, writeDecision } from '../compare/pipeline/decide-run.js';
import { postToGitHub, statusOf, type PostDeps, type PostOptions } from './github-post.js';
import { RESULTS_FILE } from '../compare/pipeline/pipeline.js';
import type { PublishTarget } from './publish-target.js';
import { reportInputOf } from '../compare/pipeline/report-input.js';

/**
 * A line that starts the sticky comment while a run is under way (a /pgperf command's acknowledgement,
 * replaced by the result).
 */
export const PENDING_NOTE = '> ⏳ ';

/** The report's file name in the results directory (the PR comment's markdown). */
export const REPORT_FILE = 'report.md';

/** The step's side of publishing, the adapter's: the job summary and the outputs. */
export interface OutputSide {
  writeSummary(markdown: string): Promise<void>;
  /** The step's outputs of the decision and of the files written (a consolidation writes one per class). */
  setOutputs(
    decision: Decision,
    comparisons: RunComparison | readonly RunComparison[],
    files: { decisionFile: string; resultsFiles: readonly string[]; reportFile: string },
  ): void;
}

/** Where and how a verdict is published: the files, the gate, the PR and commit, the comment and status. */
export interface Publishing {
  /** Where the report and decision.json are written. */
  resultsDir: string;
  failOn: FailOn;
  /** The PR and the commit GitHub vouches for (publish-target.ts). */
  target: PublishTarget;
  /** Whether the comment and the status are posted, and the comment's id. */
  post: PostOptions;
  /** The workflow run's id (in the comment's state). */
  runId?: string;
  /** The run's link when the results do not carry one. */
  runUrl?: string;
}

export interface Verdict extends Publishing {
  /** always: write the comment on every run; change: only when the decision's outcome or verdict changed. */
  commentOn: 'always' | 'change';
  /** Markdown said under the headline before the accepted trade-offs (what started the run), or ''. */
  note: string;
}

/**
 * Publishes the comparison's verdict (see the module comment); the decision and the files written are
 * returned for the step's outcome.
 */
export async function publishVerdict(
  run: { result: RunResult; comparison: RunComparison },
  verdict: Verdict,
  side: OutputSide,
  deps: PostDeps,
): Promise<{ decision: Decision; resultsFile: string; reportFile: string }> {
  const { result, comparison } = run;
  const { resultsDir, target } = verdict;
  const { logger } = deps;
  const accepted = await acceptancesFor(target, verdict.post, deps);
  const reportInput = reportInputOf(result, comparison, {
    decision: decideRun(result, comparison, verdict.failOn, accepted),
    ...(verdict.runUrl ? { fallbackRunUrl: verdict.runUrl } : {}),
  });
  const { decision } = reportInput;
  const state = target.headSha ? commentStateOf(decision, target.headSha, verdict.runId) : undefined;
  const acceptances = renderAcceptances(decision);
  const notes = [...(verdict.note ? [verdict.note] : []), ...(acceptances ? [acceptances] : [])].join('\n');
  const rendered = underHeadline(
    renderMarkdownReport({ ...reportInput, commentId: verdict.post.commentId }),
    notes,
  );
  const report = state ? withCommentState(rendered, state) : rendered;
  await mkdir(resultsDir, { recursive: true });
  const reportFile = path.join(resultsDir, REPORT_FILE);
  await writeFile(reportFile, report);
  // The summary has a 1 MiB budget, so it keeps the details a comment may have to trim.
  await side.writeSummary(underHeadline(renderJobSummary(reportInput), notes, 0));
  const decisionFile = await writeDecision(resultsDir, decision);
  const resultsFile = path.join(resultsDir, RESULTS_FILE);
  side.setOutputs(decision, comparison, { decisionFile, resultsFiles: [resultsFile], reportFile });
  logger.info(`${decision.outcome}: ${headlineText(decision)}`);
  const body = (existing: string | undefined) => {
    // A run that did not finish never replaces an earlier verdict: it is noted above it instead.
    if (result.status !== 'complete') {
      return existing ? supersededNote(existing, result.status, reportInput.runUrl) : report;
    }
    if (verdict.commentOn === 'change' && existing && state && !isNews(existing, state)) {
      logger.info(
        `comment-on change: the decision is still ${decision.outcome} (${decision.verdict}); the comment is left as it is`,
      );
      return undefined;
    }
    return report;
  };
  await postToGitHub({ body, status: statusOf(decision, reportInput.runUrl) }, target, verdict.post, deps);
  return { decision, resultsFile, reportFile };
}

/** Whether the decision differs from the one the existing comment shows (or the comment awaits a run). */
function isNews(existing: string, state: CommentState): boolean {
  const before = readCommentState(existing);
  if (!before || existing.split('\n').some((l) => l.startsWith(PENDING_NOTE))) return true;
  return before.outcome !== state.outcome || before.verdict !== state.verdict || before.sha !== state.sha;
}
