/**
 * The bot's replies to a `/pgperf` command: the quoted command, the grammar list, a reply addressed to its
 * commenter, and the acknowledgement of an acceptance.
 */
import { formatPct } from '../../compare/format.js';
import { COMMAND_GRAMMAR } from '../../pgperf-command.js';
import { METRICS, type MetricName } from '../../results/metrics.js';
import { codeText, escapeMarkdown } from '../markdown-escape.js';

/** The commands pgperf understands, one markdown list item each. */
export function grammarList(): string {
  return COMMAND_GRAMMAR.map((g) => `- ${g}`).join('\n');
}

/** A command line quoted in a reply: plain text, never markup or mentions. */
export function quote(text: string): string {
  return escapeMarkdown(text, 200);
}

/** A reply to a command: the command quoted, then `text` addressed to whoever gave it. */
export function replyText(command: string, login: string, text: string): string {
  return `> ${quote(command)}\n\n@${login}: ${text}`;
}

/** What an acknowledgement of `/pgperf accept` says (src/flows/steer/accept-command.ts). */
export interface AcceptedView {
  /** The command as given: `/pgperf accept TARGET REASON`. */
  command: string;
  login: string;
  sha: string;
  reason: string;
  cells: ReadonlyArray<{ workload: string; clients: number; metric: string; deltaPct: number }>;
}

/** The acknowledgement of an acceptance, its hidden `record` last (the one place the acceptance is kept). */
export function acceptedReply(a: AcceptedView, record: string): string {
  // The cells come from the comment's state line: escaped like any text read back from a comment.
  const listed = a.cells
    .map(
      (s) =>
        `${codeText(`${s.workload}@${s.clients}`)} ${escapeMarkdown(METRICS[s.metric as MetricName]?.label ?? s.metric)} ${formatPct(s.deltaPct)}`,
    )
    .join(', ');
  return [
    `> ${quote(a.command)}`,
    '',
    `✅ Accepted by @${a.login} for ${a.sha.slice(0, 12)}: ${listed}: ${escapeMarkdown(a.reason)}.`,
    'A new head commit, or a regression worse than this by more than its threshold, ends the acceptance; editing or deleting the command ends it too.',
    '',
    record,
  ].join('\n');
}
