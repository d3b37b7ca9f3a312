/**
 * The escaping of untrusted text (branch and ref names, workload and arm labels, script names, commit
 * subjects, fingerprints, store ids, warnings, failure reasons) for GitHub: one function per markup.
 *
 * - escapeMarkdown: markdown text, inline anywhere (a table cell, a heading, a list item, a `<summary>`).
 * - codeText: markdown text shown as a code span when it is a plain token, else escapeMarkdown's text.
 * - safeUrl: a URL a link may point at (http and https only); markdownLink and commitLink use it.
 * - issueTitleText: an issue title, which GitHub shows as plain text.
 * - core/report/html-escape.ts escapeHtml: HTML text and quoted attribute values.
 *
 * Every one first removes control and bidirectional-formatting characters (plainText). Untrusted text is
 * never put in a code span as it is, because nothing can be escaped inside one.
 */
import { plainText } from '../util/plain-text.js';

/**
 * Characters that are markup somewhere in GFM (tables, HTML, emphasis, links, code, math, strikethrough,
 * headings), each as a character reference: GitHub renders it as the character itself but never parses it
 * as syntax.
 */
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
  '#': '&#35;',
  '@': '&#64;',
};

/**
 * GitHub finds mentions (and its autolinker finds URLs and e-mail addresses) in the rendered text, after
 * character references are decoded, so a reference alone does not stop them: a zero-width joiner after the
 * `@` of a would-be mention, and a zero-width space in `://` and after `www`, break the pattern while the
 * text reads the same.
 */
const ZWJ = '&#8205;';
const ZWSP = '&#8203;';
/** How an `@` that could mention someone or start an e-mail domain is written: `&#64;&#8205;`. */
export const NEUTRAL_AT = `&#64;${ZWJ}`;

/** Markup characters; `:` before `//` (a URL scheme) and `.` after `www` (a www autolink). */
const MARKUP = /[&<>|`*_[\]\\~$#@]|:(?=\/\/)|(?<=www)\./gi;

/**
 * An `@` that GitHub could read as a mention (`@user`, `@org/team`: at the start or after anything but a
 * letter, digit or `_`) or as an e-mail address (`name@host.domain`). `workload@8` (a cell) is neither.
 */
function mentionable(text: string, at: number): boolean {
  const before = at === 0 ? '' : text.charAt(at - 1);
  return !/[A-Za-z0-9_]/.test(before) || /^[A-Za-z0-9_-]+\.[A-Za-z0-9]/.test(text.slice(at + 1));
}

/** A line that starts with these is a list item, a thematic break or a setext underline, or indented code. */
const BLOCK_START = /^([-+= \t])|^(\d{1,9})([.)])(?=\s|$)/;

/**
 * Text safe to put inline in markdown or HTML content: markup characters as character references, line
 * breaks and other control characters as single spaces, mentions, URLs and e-mail addresses broken with
 * invisible characters, and a first character that could start a block (a list, a heading, a break) as a
 * reference, so that the text cannot start anything even at the start of a line. With `maxChars`, the text
 * is cut to that many characters (before escaping) and ends in "…".
 *
 * @example escapeMarkdown('a|b<script>') === 'a&#124;b&lt;script&gt;'
 * @example escapeMarkdown('cc @org/team') === 'cc &#64;&#8205;org/team'
 */
export function escapeMarkdown(text: string, maxChars?: number): string {
  const plain = plainText(text, maxChars);
  const escaped = plain.replace(MARKUP, (c: string, at: number) => {
    if (c === '@') return mentionable(plain, at) ? NEUTRAL_AT : REFERENCES[c]!;
    if (c === ':') return `:${ZWSP}`;
    if (c === '.') return `${ZWSP}.`;
    return REFERENCES[c] ?? c;
  });
  return escaped.replace(BLOCK_START, (_m, mark?: string, digits?: string, dot?: string) =>
    mark !== undefined ? `&#${mark.charCodeAt(0)};` : `${digits}&#${dot!.charCodeAt(0)};`,
  );
}

/**
 * Text as a fenced code block: shown as it is (no markup, mention or link is rendered inside), each line
 * without control or bidirectional-formatting characters (plainText: a copied command must read as it
 * runs), and a fence longer than any run of backticks in the text, so nothing inside can close it.
 */
export function codeBlock(text: string, language = ''): string {
  const lines = text.split('\n').map((line) => plainText(line));
  const longest = Math.max(0, ...lines.flatMap((l) => l.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${language}`, ...lines, fence].join('\n');
}

/** A token that reads the same in a code span and is safe there (no backtick, no pipe, no edge spaces). */
const CODE_TOKEN = /^[A-Za-z0-9._:/+=,@%-](?:[A-Za-z0-9_.:/+=,@% -]*[A-Za-z0-9_.:/+=,@%-])?$/;

/**
 * Text in a code span ("`fp-1a2b`") when it is a plain token of letters, digits and `._:/+=,@%-` (and `_`
 * inside), else the
 * escaped text (escapeMarkdown): a code span cannot hold an escaped backtick, and a pipe in one still ends
 * a table cell. With `maxChars`, longer text is escaped text cut to that length.
 */
export function codeText(text: string, maxChars?: number): string {
  return CODE_TOKEN.test(text) && (maxChars === undefined || text.length <= maxChars)
    ? `\`${text}\``
    : escapeMarkdown(text, maxChars);
}

/** A git commit id: 4 to 64 hex digits (SHA-1 or SHA-256). */
const COMMIT_SHA = /^[0-9a-f]{4,64}$/i;

/** Length of an abbreviated commit id, as GitHub shows them. */
export const SHORT_SHA_LENGTH = 7;

/** Whether the text is a commit id (4 to 64 hex digits). */
export function isCommitSha(sha: string): boolean {
  return COMMIT_SHA.test(sha);
}

/**
 * A commit id as a short code span ("`1a2b3c4`"); anything that is not hex digits is escaped text instead,
 * since a code span cannot hold an escaped backtick.
 */
export function shortSha(sha: string): string {
  const trimmed = sha.trim();
  return COMMIT_SHA.test(trimmed)
    ? codeText(trimmed.slice(0, SHORT_SHA_LENGTH).toLowerCase())
    : escapeMarkdown(trimmed, 40);
}

/** An http(s) URL safe inside a markdown link destination or an HTML href, or null when the text is not one. */
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

/**
 * A commit: its first `digits` hex digits (a code span unless `code: false`), linked to
 * `<repoUrl>/commit/<sha>` when the repository URL is a safe http(s) URL; text that is not a commit id is
 * escaped text, never a link.
 */
export function commitLink(
  sha: string,
  repoUrl: string | null | undefined,
  options: { digits?: number; code?: boolean } = {},
): string {
  const { digits = SHORT_SHA_LENGTH, code = true } = options;
  if (!COMMIT_SHA.test(sha)) return escapeMarkdown(sha, 40);
  const short = sha.slice(0, digits);
  const label = code ? codeText(short) : short;
  const repo = repoUrl ? safeUrl(repoUrl.replace(/\/+$/, '')) : null;
  return repo ? `[${label}](${repo}/commit/${sha})` : label;
}

/**
 * Text for an issue title. GitHub shows titles as plain text (character references would show as they
 * are written), so only control and bidirectional-formatting characters are replaced, and an `@` that
 * could read as a mention gets a zero-width joiner after it (U+200D).
 */
export function issueTitleText(text: string, maxChars?: number): string {
  const plain = plainText(text, maxChars);
  return plain.replace(/@/g, (c: string, at: number) => (mentionable(plain, at) ? '@\u200d' : c));
}
