/**
 * Notes said right under a report's headline (what triggered the run, the accepted trade-offs): the first
 * thing a reader sees after the verdict, in the comment and the job summary alike.
 */

/** `notes` after the headline: line 1 of a comment (after its marker), line 0 of a summary. */
export function underHeadline(markdown: string, notes: string, headlineLine = 1): string {
  if (notes === '') return markdown;
  const lines = markdown.split('\n');
  lines.splice(headlineLine + 1, 0, '', notes);
  return lines.join('\n');
}
