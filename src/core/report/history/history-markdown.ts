import { formatP, formatPct, formatPctInterval } from '../../compare/format.js';
import { METRICS } from '../../results/metrics.js';
import { commitLink, escapeMarkdown } from '../markdown-escape.js';
import type { HistoryAnalysis, SeriesChangePoint } from '../../history/history-analysis.js';

export interface HistoryMarkdownOptions {
  /** Commits link to `${repoUrl}/commit/${sha}` when given. */
  repoUrl?: string;
}

/**
 * The history analysis as markdown for a job summary: the verdict first (regressions, improvements,
 * series analysed, series still too short), then one table line per change point, newest first, with
 * its series, commit range (last before .. first after; for a regression the last good and first bad
 * commits), the change of the median with its 95% CI, and p. Untrusted text is escaped.
 */
export function renderHistoryMarkdown(
  analysis: HistoryAnalysis,
  options: HistoryMarkdownOptions = {},
): string {
  const rows: Array<{ cp: SeriesChangePoint; line: string }> = [];
  for (const s of analysis.series) {
    const { key } = s.series;
    const metric = METRICS[key.metric];
    for (const cp of s.changePoints) {
      rows.push({
        cp,
        line:
          `| ${cp.kind === 'regression' ? '🔴 regression' : '🟢 improvement'}${shapeText(cp)} ` +
          `| ${escapeMarkdown(key.workload)} | ${key.clients} | ${metric.label} ` +
          `| ${commit(cp.lastBefore.sha, options)} .. ${commit((cp.drift?.end ?? cp.firstAfter).sha, options)} ` +
          `| ${formatPct(cp.relativeChange * 100)} ${formatPctInterval(cp.ciLower * 100, cp.ciUpper * 100)} ` +
          `| ${formatP(cp.p)} | ${escapeMarkdown(key.fingerprint)} |`,
      });
    }
  }
  rows.sort((a, b) => b.cp.firstAfter.date.localeCompare(a.cp.firstAfter.date));
  const regressions = rows.filter((r) => r.cp.kind === 'regression').length;
  const improvements = rows.length - regressions;
  const analysed = analysis.series.filter((s) => s.status === 'analysed').length;
  const short = analysis.series.length - analysed;
  const headline =
    rows.length === 0
      ? '**No change points**'
      : `**${[
          regressions > 0 ? `${regressions} regression${regressions === 1 ? '' : 's'}` : '',
          improvements > 0 ? `${improvements} improvement${improvements === 1 ? '' : 's'}` : '',
        ]
          .filter(Boolean)
          .join(', ')}**`;
  const lines = [
    `### Performance history`,
    '',
    `${headline} in ${analysed} series over ${analysis.runs} runs (p < ${formatP(analysis.options.maxP)}, at least ${analysis.options.minSegment} runs a side).` +
      (short > 0
        ? ` ${short} series ${short === 1 ? 'has' : 'have'} fewer than ${2 * analysis.options.minSegment} runs and ${short === 1 ? 'was' : 'were'} not analysed yet.`
        : ''),
  ];
  if (rows.length > 0) {
    lines.push(
      '',
      '| | workload | clients | metric | last before .. first after | change [95% CI] | p | fingerprint |',
      '|---|---|--:|---|---|--:|--:|---|',
      ...rows.map((r) => r.line),
    );
  }
  return `${lines.join('\n')}\n`;
}

function commit(sha: string | null, options: HistoryMarkdownOptions): string {
  if (!sha) return 'no commit';
  return commitLink(sha, options.repoUrl, { digits: 10, code: false });
}

/** ", drift over 60 runs" / ", transient (back at 1a2b3c4d5e)" / "" for a step. */
function shapeText(cp: SeriesChangePoint): string {
  if (cp.drift) return `, drift over ${cp.drift.runs} runs`;
  if (cp.transient)
    return `, transient (back at ${escapeMarkdown((cp.transient.back.sha ?? 'an unrecorded commit').slice(0, 10))})`;
  return '';
}
