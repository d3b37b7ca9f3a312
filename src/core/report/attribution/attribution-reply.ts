/**
 * The reply a `/pgperf attribute` command gets (docs/pr-commands.md#attribute-a-range): the attribution's
 * markdown with the text waterfall (a comment cannot show a file of the job), under GitHub's comment limit.
 * A report too long for one comment (many commits named, each with its movers) is cut at a line, never
 * inside a code block left open, and says where the whole report is.
 */
import type { AttributionReport } from '../../attribution/attribution-report.js';
import { DEFAULT_COMMENT_MAX_LENGTH } from '../markdown/markdown-size.js';
import { renderAttributionMarkdown } from './attribution-markdown.js';

export interface AttributionReplyOptions {
  repoUrl?: string;
  runUrl?: string;
  maxLength?: number;
}

export function attributionReplyText(r: AttributionReport, options: AttributionReplyOptions = {}): string {
  const max = options.maxLength ?? DEFAULT_COMMENT_MAX_LENGTH;
  const full = renderAttributionMarkdown(r, {
    ...(options.repoUrl !== undefined ? { repoUrl: options.repoUrl } : {}),
    ...(options.runUrl !== undefined ? { runUrl: options.runUrl } : {}),
  });
  if (full.length <= max) return full;
  const note = `\n\n… the report is cut here (a comment holds at most ${max.toLocaleString('en-US')} characters): the whole of it is attribution.md in the attribute job's results-dir${options.runUrl ? ' and its job summary' : ''}.\n`;
  const kept: string[] = [];
  let length = 0;
  for (const line of full.split('\n')) {
    if (length + line.length + 1 + note.length + 4 > max) break;
    kept.push(line);
    length += line.length + 1;
  }
  // A fence left open would swallow the note.
  if (kept.filter((l) => l.startsWith('```')).length % 2 === 1) kept.push('```');
  return `${kept.join('\n')}${note}`;
}
