/**
 * Markdown of a consolidated (sharded) comparison: the PR comment and the job summary. The verdict over
 * every machine class first, with what is missing named; an overview line per class; then one section per
 * machine class holding that class's report (markdown.ts, without a marker), each within its share of
 * the size limit. Pure: no I/O.
 */
import type { OverallVerdict } from '../../compare/comparison-types.js';
import {
  commentMarker,
  DEFAULT_COMMENT_MAX_LENGTH,
  DEFAULT_JOB_SUMMARY_MAX_BYTES,
  renderJobSummary,
  type JobSummaryInput,
} from './markdown.js';
import type { Decision } from '../../compare/decision/decision.js';
import { decisionIcon } from './markdown-headline.js';
import { codeText, escapeMarkdown, markdownLink, safeUrl } from '../markdown-escape.js';
import { VERDICT_DISPLAY } from '../verdict-display.js';

export interface ConsolidatedClass {
  fingerprint: string;
  /** e.g. "AMD EPYC 9654, 192 CPUs". */
  description: string;
  present: number[];
  missing: number[];
  failed: number[];
  verdict: OverallVerdict;
  report: JobSummaryInput;
}

export interface ConsolidatedReportInput {
  planId: string;
  count: number;
  /** Over every machine class: the headline says it first. */
  decision: Decision;
  classes: ConsolidatedClass[];
  runUrl?: string;
}

/** The sticky comment: marker, verdict, one section per class; at most `maxLength` characters. */
export function renderConsolidatedComment(
  input: ConsolidatedReportInput,
  commentId: string,
  maxLength = DEFAULT_COMMENT_MAX_LENGTH,
): string {
  return render(input, commentMarker(commentId), maxLength);
}

/** The job summary: the same without the marker, within the job summary's byte budget. */
export function renderConsolidatedSummary(
  input: ConsolidatedReportInput,
  maxBytes = DEFAULT_JOB_SUMMARY_MAX_BYTES,
): string {
  return render(input, null, maxBytes);
}

function render(input: ConsolidatedReportInput, marker: string | null, max: number): string {
  const d = input.decision;
  const n = input.classes.length;
  const headline = [
    `${decisionIcon(d)} **${escapeMarkdown(d.headline.lead)}**${d.headline.detail ? `: ${escapeMarkdown(d.headline.detail)}` : ''}`,
    `${n} machine class${n === 1 ? '' : 'es'}`,
    `plan ${codeText(input.planId, 80)}, ${input.count} shard${input.count === 1 ? '' : 's'}`,
    ...(input.runUrl && safeUrl(input.runUrl) ? [markdownLink('run', input.runUrl)] : []),
  ].join(' · ');
  const gaps = input.classes.flatMap((c) => [
    ...(c.missing.length
      ? [
          `shard${c.missing.length > 1 ? 's' : ''} ${c.missing.join(', ')} of ${input.count} missing on ${codeText(c.fingerprint, 80)}`,
        ]
      : []),
    ...(c.failed.length
      ? [
          `shard${c.failed.length > 1 ? 's' : ''} ${c.failed.join(', ')} of ${input.count} failed on ${codeText(c.fingerprint, 80)}`,
        ]
      : []),
  ]);
  const top = [
    [marker, headline].filter((l): l is string => l !== null).join('\n'),
    ...(gaps.length
      ? [
          `⚠️ **Incomplete, no verdict**: ${gaps.join('; ')}. Their cells have no data and count as inconclusive.`,
        ]
      : []),
    input.classes
      .map(
        (c) =>
          `- ${codeText(c.fingerprint, 80)} (${escapeMarkdown(c.description, 120)}): ${VERDICT_DISPLAY[c.verdict].icon} ${VERDICT_DISPLAY[c.verdict].word} · shards ${c.present.join(', ') || 'none'} of ${input.count}`,
      )
      .join('\n'),
  ].join('\n\n');
  // Each class's section gets an equal share of what is left (the byte budget also bounds characters).
  const share = Math.max(1000, Math.floor((max - top.length - 200 * n) / Math.max(1, n)));
  const sections = input.classes.map(
    (c) =>
      `## Machine class ${codeText(c.fingerprint, 80)}: ${escapeMarkdown(c.description, 120)}\n\n${renderJobSummary({ ...c.report, maxLength: share })}`,
  );
  return `${[top, ...sections].join('\n\n').trimEnd()}\n`;
}
