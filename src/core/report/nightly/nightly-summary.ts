/**
 * The nightly job summary: the verdict first (the workloads with an open regression event and their cells,
 * or none; the improved series), then the history's markdown; and the summary of a night that could not be
 * analysed.
 */
import { formatPct } from '../../compare/format.js';
import type { HistoryAnalysis, SeriesChangePoint } from '../../history/history-analysis.js';
import type { NightlyJudgement } from '../../history/nightly-judgement.js';
import type { Series } from '../../history/series.js';
import { renderHistoryMarkdown } from '../history/history-markdown.js';
import { escapeMarkdown } from '../markdown-escape.js';

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
  options: NightlySummaryOptions = {},
): string {
  const events = judgement.events.length;
  const cells = judgement.regressed.length;
  // Events whose every cell changed the night the runner canary did (night-watch.ts) are suspect.
  const suspect = judgement.events.filter((e) => e.regressed.every((r) => r.changePoint.suspect)).length;
  const headline =
    events > suspect
      ? `## pgperf nightly: 🔴 ${events} workload${events === 1 ? '' : 's'} regressed (${cells} cell${cells === 1 ? '' : 's'})`
      : events > 0
        ? `## pgperf nightly: ⚠️ ${events} suspect regression${events === 1 ? '' : 's'}: the runner canary moved the same night`
        : `## pgperf nightly: ✅ no workload regressed`;
  const change = (cp: SeriesChangePoint) =>
    `${formatPct(cp.relativeChange * 100)} since ${escapeMarkdown((cp.firstAfter.sha ?? 'an unrecorded commit').slice(0, 10))}`;
  const seriesLine = (s: Series, cp: SeriesChangePoint) =>
    `at ${clientsText(s.key.clients)} (${s.key.metric}): ${change(cp)}` +
    (cp.suspect ? ` ⚠️ ${escapeMarkdown(cp.suspect)}` : '');
  const lines = [headline, ''];
  if (options.measured) lines.push(`Measured ${measuredText(options.measured)}.`, '');
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
        (s) => `- ${escapeMarkdown(s.series.key.workload)} ${seriesLine(s.series, s.changePoints.at(-1)!)}`,
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

/** The job summary of a night whose run did not complete: nothing was added, nothing analysed. */
export function renderIncompleteNightly(why: string, notes: readonly string[] = []): string {
  return [
    '## pgperf nightly: ⚠️ no verdict',
    '',
    `${escapeMarkdown(why)}; nothing was analysed.`,
    ...(notes.length ? ['', ...notes] : []),
    '',
  ].join('\n');
}
