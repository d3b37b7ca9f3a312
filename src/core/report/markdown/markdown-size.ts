/**
 * The size budget of the markdown report. A PR comment must stay under GitHub's 65,536-character limit,
 * a job summary under 1 MiB (counted in UTF-8 bytes). When the whole report does not fit, details are
 * dropped in TRIM_STEPS order (raw samples first, then the execution order, then the environment facts, …)
 * until it does, and the report says what was left out. The verdict line and the tables are never trimmed;
 * only a report whose tables alone exceed the limit is cut, at a line boundary, with a note.
 */
import { artifactWhere, type ReportContext } from './markdown-context.js';

/** GitHub rejects issue and PR comment bodies longer than this many characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;
/** The default bound for a comment: below GITHUB_COMMENT_LIMIT, leaving room for what a caller appends. */
export const DEFAULT_COMMENT_MAX_LENGTH = 65_000;
/** GitHub's limit of a step's job summary ($GITHUB_STEP_SUMMARY), in bytes. */
export const GITHUB_JOB_SUMMARY_LIMIT_BYTES = 1024 * 1024;
/** The default bound for a job summary, in UTF-8 bytes, with the same kind of headroom. */
export const DEFAULT_JOB_SUMMARY_MAX_BYTES = 1_000_000;

/** What is dropped, in this order, until the report fits; each step keeps the ones before it. */
export const TRIM_STEPS = [
  { id: 'samples', what: 'raw samples omitted' },
  { id: 'order', what: 'execution order omitted' },
  { id: 'facts', what: 'environment facts omitted' },
  { id: 'warnings', what: 'warnings shortened' },
  { id: 'details', what: 'all other details omitted' },
  { id: 'charts', what: 'scaling charts omitted' },
  { id: 'notes', what: 'per-cell notes omitted' },
] as const;
export type TrimId = (typeof TRIM_STEPS)[number]['id'];

/** How big a report may be, and how its size is measured. */
export interface SizeBudget {
  maxSize: number;
  size: (text: string) => number;
  /** The limit in words, for the notes that say what was left out. */
  limitText: string;
}

/** A PR comment's budget: `maxLength` characters (UTF-16 code units). */
export function commentBudget(maxLength = DEFAULT_COMMENT_MAX_LENGTH): SizeBudget {
  return {
    maxSize: maxLength,
    size: (text) => text.length,
    limitText: `${grouped(maxLength)} characters (a GitHub comment holds at most ${grouped(GITHUB_COMMENT_LIMIT)})`,
  };
}

/** A job summary's budget: `maxBytes` UTF-8 bytes. */
export function jobSummaryBudget(maxBytes = DEFAULT_JOB_SUMMARY_MAX_BYTES): SizeBudget {
  const encoder = new TextEncoder();
  return {
    maxSize: maxBytes,
    size: (text) => encoder.encode(text).length,
    limitText: `${grouped(maxBytes)} bytes (GitHub's job summary limit is 1 MiB)`,
  };
}

function grouped(n: number): string {
  return n.toLocaleString('en-US');
}

/**
 * The report `assemble` gives with the fewest trims that fit the budget; cut to size when even every
 * trim does not.
 *
 * @throws RangeError when the budget is not a positive number.
 */
export function fitToBudget(assemble: (trims: ReadonlySet<TrimId>) => string, budget: SizeBudget): string {
  if (!(budget.maxSize > 0)) {
    throw new RangeError(`maxLength must be a positive number, got ${budget.maxSize}`);
  }
  let text = '';
  for (let steps = 0; steps <= TRIM_STEPS.length; steps++) {
    text = assemble(new Set<TrimId>(TRIM_STEPS.slice(0, steps).map((s) => s.id)));
    if (budget.size(text) <= budget.maxSize) return text;
  }
  return cutToSize(text, budget);
}

/** Last resort when even the tables do not fit: cut at a line boundary and say so. */
function cutToSize(text: string, budget: SizeBudget): string {
  const note = `\n\n✂️ **Cut to fit in ${budget.limitText}**: the tables are incomplete; the results artifact has them all.\n`;
  // Both measures count at least one per UTF-16 code unit, so nothing past maxSize can fit.
  if (budget.size(note) >= budget.maxSize) {
    let cut = text.slice(0, budget.maxSize);
    while (budget.size(cut) > budget.maxSize) cut = cut.slice(0, -1);
    return cut;
  }
  let end = Math.min(text.length, budget.maxSize);
  while (end > 0 && budget.size(text.slice(0, end)) + budget.size(note) > budget.maxSize) {
    const line = text.lastIndexOf('\n', end - 1);
    end = line > 0 ? line : Math.max(0, Math.min(end - 1, budget.maxSize - budget.size(note)));
  }
  return `${text.slice(0, end)}${note}`;
}

/** "✂️ Trimmed to fit in …: raw samples omitted, …; see the results artifact …". */
export function trimNote(ctx: ReportContext, trims: ReadonlySet<TrimId>): string {
  const what = TRIM_STEPS.filter((s) => trims.has(s.id)).map((s) => s.what);
  return (
    `✂️ **Trimmed to fit in ${ctx.limitText}:** ${what.join(', ')}; ` +
    `see the results artifact${artifactWhere(ctx)}.`
  );
}
