/**
 * Escaping of untrusted text (branch and ref names, workload and arm labels, script names, warnings, failure
 * reasons) for GitHub-flavoured markdown. Every character that can start markup becomes a character
 * reference, which GitHub renders as the character itself but never parses as syntax, so escaped text can
 * stand anywhere inline: in a table cell (no `|` to split it), in a `<summary>` (no `<` to open a tag), in a
 * list item. Code spans are avoided for untrusted text because nothing can be escaped inside them.
 */

/** Characters that are markup somewhere in GFM (tables, HTML, emphasis, links, code, math, strikethrough). */
const REFERENCES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '|': '&#124;',
  '`': '&#96;',
  '*': '&#42;',
  _: '&#95;',
  '[': '&#91;',
  ']': '&#93;',
  '\\': '&#92;',
  '~': '&#126;',
  $: '&#36;',
  // GitHub notifies users and teams named with @ in a comment's source; untrusted text must not ping anyone.
  '@': '&#64;',
};

const MARKUP = /[&<>|`*_[\]\\~$@]/g;
/** Line breaks, tabs and other control characters (a line break would end a table row or a list item),
 * and bidirectional overrides, which can make text read differently from what it is. */
const CONTROL = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]+/gu;

/**
 * Text safe to put inline in markdown or HTML content: markup characters as character references, line
 * breaks and other control characters as single spaces. With `maxChars`, the text is cut to that many
 * characters (before escaping) and ends in "…".
 *
 * @example escapeMarkdown('a|b<script>') === 'a&#124;b&lt;script&gt;'
 */
export function escapeMarkdown(text: string, maxChars?: number): string {
  let plain = text.replace(CONTROL, ' ');
  if (maxChars !== undefined && plain.length > maxChars) {
    let end = Math.max(0, maxChars - 1);
    if (/[\ud800-\udbff]/.test(plain.charAt(end - 1))) end--; // never split a surrogate pair
    plain = `${plain.slice(0, end)}…`;
  }
  return plain.replace(MARKUP, (c) => REFERENCES[c] ?? c);
}

/** A git commit id: 4 to 64 hex digits (SHA-1 or SHA-256). */
const COMMIT_SHA = /^[0-9a-f]{4,64}$/i;

/** Length of an abbreviated commit id, as GitHub shows them. */
export const SHORT_SHA_LENGTH = 7;

/**
 * A commit id as a short code span ("`1a2b3c4`"); anything that is not hex digits is escaped text instead,
 * since a code span cannot hold an escaped backtick.
 */
export function shortSha(sha: string): string {
  const trimmed = sha.trim();
  return COMMIT_SHA.test(trimmed)
    ? `\`${trimmed.slice(0, SHORT_SHA_LENGTH).toLowerCase()}\``
    : escapeMarkdown(trimmed, 40);
}

/** An http(s) URL safe inside a markdown link destination, or null when the text is not one. */
export function safeUrl(url: string): string | null {
  const trimmed = url.trim();
  if (!/^https?:\/\/[^\s<>()"'`\\]+$/i.test(trimmed)) return null;
  try {
    new URL(trimmed);
  } catch {
    return null;
  }
  return trimmed;
}

/** A markdown link when the URL is a safe http(s) URL, else the escaped label alone. */
export function markdownLink(label: string, url: string | undefined): string {
  const safe = url === undefined ? null : safeUrl(url);
  return safe === null ? escapeMarkdown(label) : `[${escapeMarkdown(label)}](${safe})`;
}
