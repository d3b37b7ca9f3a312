/**
 * Markdown rendering of a comparison for GitHub: the sticky PR comment and the job summary.
 *
 * Layout, top to bottom: the hidden marker (comment only, comment-marker.ts); the verdict line and the
 * design line (markdown-headline.ts); per head arm and workload the tables with the cells' notes and a
 * mermaid scaling chart (markdown-tables.ts, from table-model.ts); why undecided cells are undecided; the
 * commands that reproduce a decided change (reproduce-section.ts); then collapsed details (environment,
 * builds, settings, rounds and order, raw samples, warnings: markdown-details.ts). The whole fits a size
 * budget (markdown-size.ts): details are trimmed first, the tables never.
 *
 * The job summary (renderJobSummary) is the same report without the marker and with the job summary's own
 * limit (1 MiB per step, counted in UTF-8 bytes), so it normally keeps every detail.
 *
 * All text that comes from users or the machine (refs, labels, workload and script names, warnings,
 * failure reasons) goes through escapeMarkdown; mermaid titles through mermaidText. Pure: no I/O.
 */
import { METRICS } from '../../results/metrics.js';
import { commentMarker } from '../comment/comment-marker.js';
import type { JobSummaryInput, MarkdownReportInput, ReportContext } from './markdown-context.js';
import { detailBlocks } from './markdown-details.js';
import { designLines, headline } from './markdown-headline.js';
import { commentBudget, fitToBudget, jobSummaryBudget, trimNote, type SizeBudget } from './markdown-size.js';
import { tableBlocks } from './markdown-tables.js';
import { buildTables, metricDecimals } from '../table-model.js';
import type { Decision } from '../../compare/decision/decision.js';
import { escapeMarkdown } from '../markdown-escape.js';
import { reasonSentence } from '../reasons.js';
import { reproduceSection } from './reproduce-section.js';

export { commentMarker } from '../comment/comment-marker.js';
export type { CommitInfo, JobSummaryInput, MarkdownReportInput } from './markdown-context.js';
export {
  DEFAULT_COMMENT_MAX_LENGTH,
  DEFAULT_JOB_SUMMARY_MAX_BYTES,
  GITHUB_COMMENT_LIMIT,
  GITHUB_JOB_SUMMARY_LIMIT_BYTES,
  TRIM_STEPS,
} from './markdown-size.js';

/** The PR comment: the marker, then the report, at most `maxLength` characters. */
export function renderMarkdownReport(input: MarkdownReportInput): string {
  return renderReport(input, commentMarker(input.commentId), commentBudget(input.maxLength));
}

/**
 * The job summary: the same report without the marker (a summary is replaced, not searched for), bounded
 * by the job summary's limit in UTF-8 bytes (`maxLength`, default DEFAULT_JOB_SUMMARY_MAX_BYTES).
 */
export function renderJobSummary(input: JobSummaryInput): string {
  return renderReport(input, null, jobSummaryBudget(input.maxLength));
}

function renderReport(input: JobSummaryInput, marker: string | null, budget: SizeBudget): string {
  const { result, comparison } = input;
  const info = METRICS[comparison.metric];
  const ctx: ReportContext = {
    result,
    c: comparison,
    input,
    metric: { label: info.label, unit: info.unit, decimals: metricDecimals(comparison.metric) },
    limitText: budget.limitText,
  };
  const top = [
    [marker, headline(ctx)].filter((l): l is string => l !== null).join('\n'),
    ...designLines(ctx),
  ];
  const tables = buildTables(comparison);
  return fitToBudget((trims) => {
    const blocks = [
      ...top,
      ...tableBlocks(ctx, tables, trims),
      ...reasonsBlock(input.decision),
      ...reproduceSection(result, input.decision),
    ];
    if (trims.size > 0) blocks.push(trimNote(ctx, trims));
    if (!trims.has('details')) blocks.push(...detailBlocks(ctx, trims));
    return `${blocks.join('\n\n')}\n`;
  }, budget);
}

/** Why the undecided cells are undecided, each reason once with its cells (the tables give each a phrase). */
function reasonsBlock(d: Decision): string[] {
  if (d.reasons.length === 0) return [];
  const items = d.reasons.map((r) => {
    const cells =
      r.cells.length > 6
        ? `${r.cells.slice(0, 6).join(', ')} and ${r.cells.length - 6} more`
        : r.cells.join(', ');
    return `- ${escapeMarkdown(cells)}: ${escapeMarkdown(reasonSentence(r))}`;
  });
  return [`**Why undecided** (each reason once):\n${items.join('\n')}`];
}
