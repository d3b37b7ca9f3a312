/**
 * The line under a PR comment's headline that says what started the run and which head it measured: a
 * `/pgperf` command and who gave it, a label and who added it, a push, ... (the adapter reads the trigger
 * from the event GitHub wrote, never from results.json).
 */
import { escapeMarkdown } from './markdown-escape.js';

/** What started a run ("/pgperf run", "label perf added", ...) and the login that did it. */
export interface Trigger {
  what: string;
  /** A GitHub login, as the event names it (GitHub vouches for it: mentioned as it is). */
  by?: string;
}

/** The trigger as markdown: its text escaped (a command's reason is anyone's words), the login mentioned. */
export function triggerText(trigger: Trigger | undefined): string {
  if (!trigger) return 'this workflow';
  return `${escapeMarkdown(trigger.what)}${trigger.by ? ` by @${trigger.by}` : ''}`;
}

/**
 * "_Triggered by ... ._" ('' when nothing is known): a command's run (`byCommand`) names the head it
 * measured, and whether the PR head has moved on since (`movedTo`).
 */
export function triggerNote(
  trigger: Trigger | undefined,
  measured: { headSha?: string | undefined; movedTo?: string | undefined },
  byCommand: boolean,
): string {
  const moved = measured.movedTo
    ? `; measured head ${measured.headSha!.slice(0, 12)} as it was at the command: the PR head has since moved to ${measured.movedTo.slice(0, 12)}, so this result is not about the current head`
    : byCommand && measured.headSha
      ? `; measured head ${measured.headSha.slice(0, 12)}, the PR head at the command`
      : '';
  return trigger || moved ? `_Triggered by ${triggerText(trigger)}${moved}._` : '';
}
