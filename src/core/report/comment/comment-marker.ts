/** The hidden first line of the sticky PR comment, by which a later run finds the comment again. */

const MARKER_PREFIX = '<!-- pgperf:comment-id=';

/**
 * `<!-- pgperf:comment-id=<id> -->`. The id is percent-encoded (encodeURIComponent), so it can never
 * contain `>` and end the HTML comment early, and different ids always give different markers;
 * "pgperf-main" stays as it is.
 *
 * @throws Error for an empty id.
 */
export function commentMarker(id: string): string {
  if (id.trim() === '') throw new Error("the comment id must not be empty; use e.g. 'pgperf'");
  return `${MARKER_PREFIX}${encodeURIComponent(id)} -->`;
}
