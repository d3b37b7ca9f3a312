/**
 * The nightly job summary: the night's decision first, as every surface says it (its headline: the log line,
 * the outputs and decision.json say the same words), then the workloads with an open regression event and
 * their cells, the improved series, the workloads whose definition changed, then the history's markdown; and
 * the summary of a night that could not be analysed.
 */
import { formatPct } from '../../compare/format.js';
import {
  currentChangePoint,
  type HistoryAnalysis,
  type SeriesChangePoint,
} from '../../history/history-analysis.js';
import type { NightlyJudgement } from '../../history/nightly-judgement.js';
import type { Series } from '../../history/series.js';
import { renderHistoryMarkdown } from '../history/history-markdown.js';
import { escapeMarkdown } from '../markdown-escape.js';
import type { GateDecision } from '../../compare/decision/flow-decision.js';
import { VERDICT_DISPLAY } from '../verdict-display.js';
import { latestDefinitionChanges, type DefinitionChange } from '../../history/definition-changes.js';

export interface NightlySummaryOptions {
  repoUrl?: string;
  /** What was measured tonight (shown as "master @ 1a2b3c4d5e", or "the given install" with neither). */
  measured?: { ref?: string; sha?: string };
  /** Extra lines under the verdict (issues opened, where the site went). */
  notes?: readonly string[];
}

/** "1 client" / "8 clients". */
export function clientsText(clients: number): string {
  return `${clients} client${clients === 1 ? '' : 's'}`;
}

/**
 * The job summary: the verdict first (the workloads with an open regression event and their cells, or
 * none; the improved series), then the history's markdown (every change point with its commit range and CI).
 */
export function renderNightlySummary(
  analysis: HistoryAnalysis,
  judgement: NightlyJudgement,
  decision: GateDecision,
  options: NightlySummaryOptions = {},
): string {
  const events = judgement.events.length;
  const change = (cp: SeriesChangePoint) =>
    `${cp.drift ? `drift ${formatPct(cp.relativeChange * 100)} over ${cp.drift.runs} runs` : formatPct(cp.relativeChange * 100)} ` +
    `since ${escapeMarkdown((cp.firstAfter.sha ?? 'an unrecorded commit').slice(0, 10))}`;
  const seriesLine = (s: Series, cp: SeriesChangePoint) =>
    `at ${clientsText(s.key.clients)} (${s.key.metric}): ${change(cp)}` +
    (cp.suspect ? ` ⚠️ ${escapeMarkdown(cp.suspect)}` : '');
  const lines = decisionLines(decision);
  if (options.measured) lines.push(`Measured ${measuredText(options.measured)}.`, '');
  const restarts = latestDefinitionChanges(analysis);
  if (restarts.length > 0) {
    const machines = new Set(analysis.series.map((s) => s.series.key.fingerprint)).size;
    lines.push(...restarts.map((c) => definitionChangeLine(c, machines > 1)), '');
  }
  if (events > 0) {
    lines.push('**Regressed** (latest change point), one regression event per workload:');
    for (const e of judgement.events) {
      lines.push(
        `- ${escapeMarkdown(e.workload)} on ${escapeMarkdown(e.fingerprint)}: ${e.regressed.length} cell${e.regressed.length === 1 ? '' : 's'}`,
        ...e.regressed.map((c) => `  - ${seriesLine(c.series, c.changePoint)}`),
      );
    }
    lines.push('');
  }
  if (judgement.improved.length > 0) {
    lines.push(
      '**Improved** (latest change point):',
      ...judgement.improved.map(
        (s) => `- ${escapeMarkdown(s.series.key.workload)} ${seriesLine(s.series, currentChangePoint(s)!)}`,
      ),
      '',
    );
  }
  if (options.notes?.length) lines.push(...options.notes, '');
  return `${lines.join('\n')}${renderHistoryMarkdown(analysis, { repoUrl: options.repoUrl })}`;
}

/** "master @ 1a2b3c4d5e", escaped; "the given install" when neither is known. */
export function measuredText(measured: { ref?: string; sha?: string }): string {
  const parts = [measured.ref, measured.sha?.slice(0, 10)].filter((p): p is string => Boolean(p));
  return parts.length > 0 ? parts.map((p) => escapeMarkdown(p)).join(' @ ') : 'the given install';
}

/**
 * The job summary of a night that was not analysed (its run did not complete): the decision's headline,
 * then the notes.
 */
export function renderIncompleteNightly(decision: GateDecision, notes: readonly string[] = []): string {
  return [
    ...decisionLines(decision),
    'Nothing was analysed.',
    ...(notes.length ? ['', ...notes] : []),
    '',
  ].join('\n');
}

/** The words of each outcome, as the status and the log say them. */
const OUTCOME_TITLES: Record<GateDecision['outcome'], string> = {
  passed: 'Passed',
  failed: 'Failed',
  pending: 'Pending',
  incomplete: 'Incomplete',
};

/**
 * The decision's headline as the summary's title, its detail under it: "## pgperf nightly: ❔ Pending: Too
 * few runs to analyse", the words of the log line and of the commit status.
 */
function decisionLines(d: GateDecision): string[] {
  const icon =
    d.outcome === 'failed'
      ? '🔴'
      : d.outcome === 'pending'
        ? '❔'
        : d.outcome === 'incomplete' || d.verdict === 'regression'
          ? '⚠️'
          : VERDICT_DISPLAY[d.verdict].icon;
  const lead = d.outcome === 'incomplete' ? '' : `: ${escapeMarkdown(d.headline.lead)}`;
  return [
    `## pgperf nightly: ${icon} ${OUTCOME_TITLES[d.outcome]}${lead}`,
    '',
    ...(d.headline.detail ? [`${escapeMarkdown(d.headline.detail)}.`, ''] : []),
  ];
}

/**
 * "select-only: the workload definition changed on 2026-10-09 (3f9a0c1b2d -> 77aa01bc22): history restarts
 * there." Said once per workload (and machine), whatever its cells.
 */
export function definitionChangeLine(c: DefinitionChange, withMachine: boolean): string {
  const machine = withMachine ? ` on ${escapeMarkdown(c.fingerprint)}` : '';
  return (
    `${escapeMarkdown(c.workload)}${machine}: the workload definition changed on ${c.date.slice(0, 10)} ` +
    `(${c.from} -> ${c.to}): history restarts there.`
  );
}
