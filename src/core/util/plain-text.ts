/** Untrusted text made safe to show as one line: no control or bidirectional-formatting characters. */

/**
 * Control characters (C0 with line breaks and tabs, DEL, C1), the line and paragraph separators, and the
 * bidirectional marks, embeddings, overrides and isolates, which can make text read differently from what
 * it is (a name shown backwards, a "safe" word hiding an unsafe one).
 */
const CONTROL = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/gu;

/**
 * Untrusted text (workload and arm names, refs, subjects, messages) as one line of plain text: every run of
 * control and bidirectional-formatting characters becomes a single space. With `maxChars`, the text is cut
 * to that many characters and ends in "…" (never inside a surrogate pair). The one function behind every
 * markup's escaping (core/report/markdown-escape.ts, core/report/html-escape.ts) and the commit status.
 *
 * @example plainText('a\nb\u202ec') === 'a b c'
 */
export function plainText(text: string, maxChars?: number): string {
  const plain = text.replace(CONTROL, ' ');
  if (maxChars === undefined || plain.length <= maxChars) return plain;
  let end = Math.max(0, maxChars - 1);
  if (/[\ud800-\udbff]/.test(plain.charAt(end - 1))) end--; // never split a surrogate pair
  return `${plain.slice(0, end)}…`;
}
