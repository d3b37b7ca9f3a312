/**
 * Publishing a comparison's verdict, the one sequence of the Action's benchmark and comment modes: the
 * accepted trade-offs read, the decision made, the report (the PR comment's markdown) and decision.json
 * written, the job summary, the outputs, then the sticky comment and the commit status. What GitHub does
 * with each is the adapter's, behind `VerdictSide`; the rules of what is written are here.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { headlineText, type Decision } from '../../core/compare/decision.js';
import type { FailOn, GatePolicy } from '../../core/compare/policy.js';
import type { RunComparison } from '../../core/compare/types.js';
import { renderAcceptances } from '../../core/report/acceptance-markdown.js';
import {
  commentStateOf,
  readCommentState,
  withCommentState,
  type CommentState,
} from '../../core/report/comment-state.js';
import { underHeadline } from '../../core/report/headline-notes.js';
import { renderJobSummary, renderMarkdownReport } from '../../core/report/markdown.js';
import { markdownLink } from '../../core/report/markdown-escape.js';
import type { RunResult } from '../../core/results/types.js';
import type { Logger } from '../../core/util/logger.js';
import { decideRun, writeDecision } from './decide-run.js';
import { RESULTS_FILE } from './pipeline.js';
import { reportInputOf } from './report-input.js';

/**
 * A line that starts the sticky comment while a run is under way (a /pgperf command's acknowledgement,
 * replaced by the result).
 */
export const PENDING_NOTE = '> ⏳ ';

/** The report's file name in the results directory (the PR comment's markdown). */
export const REPORT_FILE = 'report.md';

/** What the adapter does on GitHub's side while a verdict is published. */
export interface VerdictSide {
  /** The accepted trade-offs that count now (undefined: none, or none can be read). */
  accepted(): Promise<GatePolicy['accepted']>;
  writeSummary(markdown: string): Promise<void>;
  /** The step's outputs of the decision and of the files written. */
  setOutputs(
    decision: Decision,
    comparison: RunComparison,
    files: { decisionFile: string; resultsFile: string; reportFile: string },
  ): void;
  /**
   * The sticky comment, as a function of the existing one's body (undefined when there is none; returning
   * undefined leaves it as it is), and the commit status of the decision linked to `runUrl`.
   */
  post(
    body: (existing: string | undefined) => string | undefined,
    decision: Decision,
    runUrl?: string,
  ): Promise<void>;
}

export interface Verdict {
  result: RunResult;
  comparison: RunComparison;
  resultsDir: string;
  failOn: FailOn;
  commentId: string;
  /** always: write the comment on every run; change: only when the decision's outcome or verdict changed. */
  commentOn: 'always' | 'change';
  /** The commit the comment state and the status are about, when known. */
  headSha?: string;
  runId?: string;
  /** The run's link when the results do not carry one. */
  fallbackRunUrl?: string;
  /** Markdown said under the headline before the accepted trade-offs (what started the run), or ''. */
  note: string;
}

/** Publishes `verdict`; the decision and the files written are returned for the step's outcome. */
export async function publishVerdict(
  verdict: Verdict,
  side: VerdictSide,
  logger: Logger,
): Promise<{ decision: Decision; resultsFile: string; reportFile: string }> {
  const { result, comparison, resultsDir } = verdict;
  const accepted = await side.accepted();
  const reportInput = reportInputOf(result, comparison, {
    decision: decideRun(result, comparison, verdict.failOn, accepted),
    ...(verdict.fallbackRunUrl ? { fallbackRunUrl: verdict.fallbackRunUrl } : {}),
  });
  const { decision } = reportInput;
  const state = verdict.headSha ? commentStateOf(decision, verdict.headSha, verdict.runId) : undefined;
  const acceptances = renderAcceptances(decision);
  const notes = [...(verdict.note ? [verdict.note] : []), ...(acceptances ? [acceptances] : [])].join('\n');
  const rendered = underHeadline(
    renderMarkdownReport({ ...reportInput, commentId: verdict.commentId }),
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
  side.setOutputs(decision, comparison, { decisionFile, resultsFile, reportFile });
  logger.info(`${decision.outcome}: ${headlineText(decision)}`);
  await side.post(
    (existing) => {
      // A run that did not finish never replaces an earlier verdict: it is noted above it instead.
      if (result.status !== 'complete') {
        return existing ? supersededNote(existing, result, reportInput.runUrl) : report;
      }
      if (verdict.commentOn === 'change' && existing && state && !isNews(existing, state)) {
        logger.info(
          `comment-on change: the decision is still ${decision.outcome} (${decision.verdict}); the comment is left as it is`,
        );
        return undefined;
      }
      return report;
    },
    decision,
    reportInput.runUrl,
  );
  return { decision, resultsFile, reportFile };
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

/** Whether the decision differs from the one the existing comment shows (or the comment awaits a run). */
function isNews(existing: string, state: CommentState): boolean {
  const before = readCommentState(existing);
  if (!before || existing.split('\n').some((l) => l.startsWith(PENDING_NOTE))) return true;
  return before.outcome !== state.outcome || before.verdict !== state.verdict || before.sha !== state.sha;
}
