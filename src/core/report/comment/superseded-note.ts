/**
 * The sticky comment when a later run did not finish: the earlier complete run's comment, kept, under one
 * note that says so (replacing any earlier such note), its marker still first.
 */
import { markdownLink } from '../markdown-escape.js';

/** The earlier comment, kept, under a note that a later run did not finish. */
export function supersededNote(existing: string, status: string, runUrl: string | undefined): string {
  const lines = existing.split('\n');
  const marker = lines[0]!.startsWith('<!--') ? lines.shift()! : '';
  const kept = lines.filter((l) => !l.startsWith('> ⚠️ **A later run'));
  const link = runUrl ? ` (${markdownLink('run', runUrl)})` : '';
  const note = `> ⚠️ **A later run was ${status}**${link} before it finished; the verdict below is from the earlier complete run.`;
  return [marker, note, ...kept].filter((l, i) => i > 0 || l !== '').join('\n');
}
