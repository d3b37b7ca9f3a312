/** The texts the bot's replies to a `/pgperf` command share: the quoted command and the grammar list. */
import { COMMAND_GRAMMAR } from '../../pgperf-command.js';
import { escapeMarkdown } from '../markdown-escape.js';

/** The commands pgperf understands, one markdown list item each. */
export function grammarList(): string {
  return COMMAND_GRAMMAR.map((g) => `- ${g}`).join('\n');
}

/** A command line quoted in a reply: plain text, never markup or mentions. */
export function quote(text: string): string {
  return escapeMarkdown(text, 200);
}
