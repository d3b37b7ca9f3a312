/**
 * What every part of the markdown report reads: the report's input, the context built from it once, and
 * the few phrases the parts share (arm names, client counts, grouped numbers, "see the results artifact").
 */
import type { Decision } from '../../compare/decision/decision.js';
import type { RunComparison } from '../../compare/comparison-types.js';
import type { RunResult } from '../../results/result-types.js';
import { escapeMarkdown, markdownLink } from '../markdown-escape.js';

/** A commit the report names: the arm's label, and where known its sha, ref and why it was chosen. */
export interface CommitInfo {
  label: string;
  sha?: string;
  ref?: string;
  /** How the commit was chosen, e.g. "merge-base of main and PR head". */
  chosenBy?: string;
}

export interface MarkdownReportInput {
  result: RunResult;
  comparison: RunComparison;
  /** What the report says first (its headline, the gate), made once by decide(). */
  decision: Decision;
  /** Identifies the sticky comment (see commentMarker); any text, encoded in the marker. */
  commentId: string;
  /** The baseline commit (arms[0]); defaults to the results' recorded source, else the arm's label. */
  base?: CommitInfo;
  /** The head commit (the first head arm); defaults like `base`. */
  head?: CommitInfo;
  /** The workflow run, linked from the report and from "see the results artifact". */
  runUrl?: string;
  /** Upper bound on the report's length in characters (UTF-16 code units); DEFAULT_COMMENT_MAX_LENGTH. */
  maxLength?: number;
}

/** The job summary takes the same input without the comment id; maxLength counts UTF-8 bytes there. */
export type JobSummaryInput = Omit<MarkdownReportInput, 'commentId'>;

export interface ReportContext {
  result: RunResult;
  c: RunComparison;
  input: JobSummaryInput;
  /** The comparison's metric, and the decimals its values are shown with. */
  metric: { label: string; unit: string; decimals: number };
  /** The size limit in words, e.g. "65,000 characters (a GitHub comment holds at most 65,536)". */
  limitText: string;
}

/** "base", or "base **pg17**" when the arm's label is not the role's name. */
export function armName(role: 'base' | 'head', label: string): string {
  return label === role ? role : `${role} **${escapeMarkdown(label)}**`;
}

export function clientsText(clients: number): string {
  return `${clients} client${clients === 1 ? '' : 's'}`;
}

/** " of the [workflow run](…)" when the run's address is known. */
export function artifactWhere(ctx: ReportContext): string {
  return ctx.input.runUrl === undefined ? '' : ` of the ${markdownLink('workflow run', ctx.input.runUrl)}`;
}

/** "_Raw samples omitted for size: see the results artifact…_". */
export function omitted(ctx: ReportContext, what: string): string {
  return `_${what} omitted for size: see the results artifact${artifactWhere(ctx)}._`;
}
