/**
 * A record hidden in a comment body: one HTML comment line `<!-- pgperf:<tag> <data> -->`, the data JSON in
 * base64url so that nothing in it can end the HTML comment early. Reading gives the parsed JSON, unchecked
 * (the caller checks its shape), or undefined when the body has no such line or it does not parse. Who
 * wrote the comment is the caller's question: only comments the token's own login wrote are read back.
 */

const SUFFIX = ' -->';
const prefixOf = (tag: string) => `<!-- pgperf:${tag} `;

export function renderHiddenRecord(tag: string, value: unknown): string {
  return `${prefixOf(tag)}${Buffer.from(JSON.stringify(value)).toString('base64url')}${SUFFIX}`;
}

/** Whether a line of a body is a record of `tag`. */
export function isHiddenRecordLine(tag: string, line: string): boolean {
  return line.startsWith(prefixOf(tag)) && line.endsWith(SUFFIX);
}

/**
 * The record of `tag` in a body: the last such line outside fenced code blocks. A fence quotes text the
 * comment shows (a workload, a command), which may come from a results file a PR's code wrote: never a
 * record. The last, because the writer appends its record at the end (withCommentState).
 */
export function readHiddenRecord(tag: string, body: string): unknown {
  const line = linesOutsideFences(body).findLast((l) => isHiddenRecordLine(tag, l));
  if (!line) return undefined;
  try {
    const data = line.slice(prefixOf(tag).length, -SUFFIX.length);
    return JSON.parse(Buffer.from(data, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The lines of a markdown body that are not inside a fenced code block (``` or ~~~, 3 or more). */
function linesOutsideFences(body: string): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of body.split('\n')) {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined) {
      if (opener) fence = opener;
      else out.push(line);
    } else if (opener && opener[0] === fence[0] && opener.length >= fence.length && line.trim() === opener) {
      fence = undefined;
    }
  }
  return out;
}
