/**
 * The night's report as markdown, its decision first: the job summary of the Action's mode nightly and
 * what `pgperf nightly` prints. The summary (nightly-summary.ts) under notes of the runner's side of the
 * night (alerts, the canary's shifts), of the regression issues kept, and of the adapter's own.
 */
import type { GateDecision } from '../../compare/decision/flow-decision.js';
import type { HistoryAnalysis } from '../../history/history-analysis.js';
import type { NightWatch } from '../../history/night-watch.js';
import type { NightlyJudgement } from '../../history/nightly-judgement.js';
import type { RunSource } from '../../results/result-types.js';
import { escapeMarkdown } from '../markdown-escape.js';
import { renderIncompleteNightly, renderNightlySummary } from './nightly-summary.js';
import { describeAutoBisect, describeSync, type IssueSync } from './regression-event.js';

/** What the report reads of a night (src/flows/nightly's NightlyOutcome is one). */
export interface NightlyReportView {
  /** The source recorded with the run (with the built commit). */
  source: RunSource;
  /** Why the night adds nothing to the history; nothing was analysed. */
  incomplete?: string;
  /** Why the run was not saved to the store. */
  notSaved?: string;
  analysis?: HistoryAnalysis;
  judgement?: NightlyJudgement;
  /** The regression issues: what was done, or why it could not be. */
  issues?: IssueSync;
  /** The bisections started without a label tonight, with what each found. */
  bisections?: { issue: number; series: string; result: string }[];
  /** What the history says about the runner. */
  watch?: NightWatch;
}

export interface NightlyReportOptions {
  repoUrl?: string;
  /** Lines of the adapter's own (where the history site went). */
  notes?: readonly string[];
}

/**
 * The night's markdown, its decision first (nightlyDecision: the headline the log, the outputs and
 * decision.json say): the job summary of the Action and what `pgperf nightly` prints.
 */
export function nightlyReport(
  outcome: NightlyReportView,
  decision: GateDecision,
  options: NightlyReportOptions = {},
): string {
  const notes = [...watchNotes(outcome), ...issueNotes(outcome), ...(options.notes ?? [])];
  if (outcome.incomplete || !outcome.analysis || !outcome.judgement) {
    return renderIncompleteNightly(decision, notes);
  }
  if (outcome.notSaved) {
    notes.unshift(`⚠️ Tonight's run was not saved to the store: ${escapeMarkdown(outcome.notSaved)}.`);
  }
  return renderNightlySummary(outcome.analysis, outcome.judgement, decision, {
    ...(options.repoUrl ? { repoUrl: options.repoUrl } : {}),
    measured: { ref: outcome.source.head?.ref, sha: outcome.source.head?.sha },
    notes,
  });
}

/** The runner's side of the night (night-watch.ts): alerts first, then the canary's shifts. */
function watchNotes(outcome: NightlyReportView): string[] {
  const watch = outcome.watch;
  if (!watch) return [];
  return [
    ...watch.alerts.map((a) => `⚠️ Alert: ${escapeMarkdown(a.message)}.`),
    ...watch.canaryShifts.map(
      (c) =>
        `Runner canary ${escapeMarkdown(c.series)}: latest change point ${(c.relativeChange * 100).toFixed(1)}% on ${c.night} (runner drift; regressions of that night are suspect).`,
    ),
  ];
}

function issueNotes(outcome: NightlyReportView): string[] {
  if (!outcome.issues) return [];
  if ('error' in outcome.issues) return [`⚠️ ${escapeMarkdown(outcome.issues.error)}`];
  const done = outcome.issues.done;
  const numbers = [...done.opened, ...done.updated, ...done.closed].map((n) => `#${n}`);
  return [
    `Regression issues: ${describeSync(done)}${numbers.length ? ` (${numbers.join(', ')})` : ''}.`,
    ...describeAutoBisect(done, (t) => escapeMarkdown(t)),
    ...(outcome.bisections ?? []).map(
      (b) => `Bisection of #${b.issue} (${escapeMarkdown(b.series)}): ${escapeMarkdown(b.result)}.`,
    ),
  ];
}
