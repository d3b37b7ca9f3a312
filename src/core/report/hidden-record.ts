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

export function readHiddenRecord(tag: string, body: string): unknown {
  const line = body.split('\n').find((l) => isHiddenRecordLine(tag, l));
  if (!line) return undefined;
  try {
    const data = line.slice(prefixOf(tag).length, -SUFFIX.length);
    return JSON.parse(Buffer.from(data, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}
