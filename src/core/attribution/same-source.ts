/**
 * Same code from the source alone, before anything is built: an attribution passes over a commit whose
 * changes cannot move the instructions executed. A change is such when every file it touches is
 *
 * - documentation: under `doc/`, or a `README*` or `*.md` file anywhere (never compiled nor installed by a
 *   server build);
 * - a C source or header (`.c`, `.h`) whose text is the same once its comments are taken out and its layout
 *   (blank lines, runs of spaces and tabs, indentation) is normalised: the same tokens, line by line, so the
 *   compiled code differs at most in `__LINE__` (the line numbers ereport calls pass), never in what runs.
 *
 * Anything else (a file added or removed that is not documentation, any other kind of file, a token
 * changed) is not vouched for: the commit is built and its compiled code compared.
 */

/** One file a change touches, as `git diff --name-status` says (A added, D deleted, M modified, ...). */
export interface ChangedPath {
  status: string;
  path: string;
}

/** Whether a path is documentation only (no server build compiles or installs it). */
export function isDocsPath(p: string): boolean {
  const name = p.split('/').pop() ?? p;
  return p.startsWith('doc/') || /^README/.test(name) || /\.md$/i.test(name);
}

/** Whether a path is a C source or header file. */
export function isCSource(p: string): boolean {
  return /\.(c|h)$/.test(p);
}

/**
 * C text without its comments (each replaced by one space, as the compiler reads it), string and
 * character literals kept as they are, then per line: leading and trailing blanks removed, inner runs of
 * blanks made one space; blank lines dropped. Line continuations (`\` at a line's end) are kept, so a
 * preprocessor directive stays the one line it was.
 */
export function withoutComments(text: string): string {
  let out = '';
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      out += ' ';
    } else if (c === '/' && next === '/') {
      // To the end of the line; a `\` before the newline continues the comment (C's phase 2 comes first).
      let j = i + 2;
      while (j < n && !(text[j] === '\n' && text[j - 1] !== '\\')) j++;
      i = j;
      out += ' ';
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < n && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v\r]+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}

/**
 * Whether the changes cannot move the instructions executed (docs, or C comments and layout only), and,
 * when they can, the first file that says so. `read` gives a modified file's text on both sides; it is
 * asked only for C files, and no further once one file decides.
 */
export async function sameCodeBySource(
  changes: readonly ChangedPath[],
  read: (path: string) => Promise<{ before: string; after: string }>,
): Promise<{ same: boolean; file?: string }> {
  for (const c of changes) {
    if (isDocsPath(c.path)) continue;
    if (c.status === 'M' && isCSource(c.path)) {
      const { before, after } = await read(c.path);
      if (withoutComments(before) === withoutComments(after)) continue;
    }
    return { same: false, file: c.path };
  }
  return { same: true };
}
