/**
 * A lexer for PostgreSQL SQL as pgbench scripts hold it, and the statements of a script cut by it, for the
 * plan phase (src/drivers/pgbench/statements.ts, src/postgres/plan-capture.ts): what is a quote, a comment
 * or a semicolon follows the rules of psql's lexer (src/fe_utils/psqlscan.l), which pgbench reads its
 * scripts with, so that a `;` or a `'` inside a comment, a string or a dollar quote never cuts or glues
 * statements. A statement glued to the next one and sent as `EXPLAIN <it>` would run the second.
 *
 * - `--` comments run to the end of the line; `/* ... *\/` comments nest.
 * - `'...'` strings double a quote to escape it (`''`); `E'...'` strings also take backslash escapes
 *   (`\'`, `\\`); the `E` counts only where a token starts (in `abcE'x'` it ends the identifier `abcE`).
 * - `"..."` identifiers double a quote (`""`).
 * - Dollar quotes: `$$ ... $$` and `$tag$ ... $tag$`, where `$` starts a token (in `a$b$` it is part of the
 *   identifier, and `$1` is a parameter).
 * - A semicolon ends a statement only outside parentheses and outside the `BEGIN ... END` body of
 *   `CREATE [OR REPLACE] FUNCTION|PROCEDURE` (psql's heuristic, kept as psql has it).
 * - A backslash outside quotes and comments starts a pgbench meta-command (`\set`, `\sleep`, `\gset`, ...):
 *   the SQL before it ends there, and the meta-command runs to the end of its line, on over lines that end in
 *   a backslash. `\;` and `\:` are psql's escapes: a `;` that does not end the statement (pgbench then sends
 *   a compound statement, several statements in one) and a plain `:`.
 *
 * Linear in the length of the text.
 */

/** What a token is; `space` covers whitespace, `comment` both comment forms. */
export type SqlTokenKind =
  | 'space'
  | 'comment'
  | 'string'
  | 'quoted-identifier'
  | 'dollar-string'
  | 'identifier'
  | 'variable'
  | 'semicolon'
  | 'other';

export interface SqlToken {
  kind: SqlTokenKind;
  /** The token's text as written. */
  text: string;
  /** A string, quoted identifier, dollar quote or comment that the text ends inside of. */
  unterminated?: boolean;
  /** A `;` written `\;`: inside a compound statement, it does not end it. */
  escaped?: boolean;
}

const IDENT_START = /[A-Za-z_\u0080-\uffff]/;
const IDENT_CONT = /[A-Za-z_0-9$\u0080-\uffff]/;

/** The end (exclusive) of the identifier that starts at `i` (the character there starts one). */
function identifierEnd(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length && IDENT_CONT.test(text[j]!)) j++;
  return j;
}

/** The end of a quoted run from the quote at `i`: `'...'` / `"..."` with doubled quotes, E'' with backslashes. */
function quotedEnd(text: string, i: number, quote: string, backslashes: boolean): [number, boolean] {
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j]!;
    if (backslashes && c === '\\') {
      j++;
      continue;
    }
    if (c === quote) {
      if (text[j + 1] === quote) {
        j++;
        continue;
      }
      return [j + 1, false];
    }
  }
  return [text.length, true];
}

/** The end of a `/* ... *\/` comment from `i`, nested comments included. */
function blockCommentEnd(text: string, i: number): [number, boolean] {
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    if (text[j] === '/' && text[j + 1] === '*') {
      depth++;
      j++;
    } else if (text[j] === '*' && text[j + 1] === '/') {
      depth--;
      j++;
      if (depth === 0) return [j + 1, false];
    }
  }
  return [text.length, true];
}

/** The dollar-quote delimiter (`$$`, `$tag$`) at `i`, or undefined. */
function dollarDelimiter(text: string, i: number): string | undefined {
  const m = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z_0-9\u0080-\uffff]*)?\$/.exec(text.slice(i, i + 66));
  return m?.[0];
}

/** The token that starts at `i` (< text.length). */
export function tokenAt(text: string, i: number): SqlToken {
  const token = (kind: SqlTokenKind, end: number, extra: Partial<SqlToken> = {}): SqlToken => ({
    kind,
    text: text.slice(i, end),
    ...extra,
  });
  const c = text[i]!;
  const next = text[i + 1];
  if (/\s/.test(c)) {
    let j = i + 1;
    while (j < text.length && /\s/.test(text[j]!)) j++;
    return token('space', j);
  }
  if (c === '-' && next === '-') {
    const nl = text.indexOf('\n', i);
    return token('comment', nl < 0 ? text.length : nl);
  }
  if (c === '/' && next === '*') {
    const [end, open] = blockCommentEnd(text, i);
    return token('comment', end, open ? { unterminated: true } : {});
  }
  if (c === "'" || ((c === 'E' || c === 'e') && next === "'")) {
    const [end, open] = quotedEnd(text, c === "'" ? i : i + 1, "'", c !== "'");
    return token('string', end, open ? { unterminated: true } : {});
  }
  if (c === '"') {
    const [end, open] = quotedEnd(text, i, '"', false);
    return token('quoted-identifier', end, open ? { unterminated: true } : {});
  }
  const delimiter = c === '$' ? dollarDelimiter(text, i) : undefined;
  if (delimiter) {
    const close = text.indexOf(delimiter, i + delimiter.length);
    return close < 0
      ? token('dollar-string', text.length, { unterminated: true })
      : token('dollar-string', close + delimiter.length);
  }
  if (IDENT_START.test(c)) return token('identifier', identifierEnd(text, i));
  // A pgbench variable (`:aid`); `::int` is a cast.
  if (c === ':' && next !== undefined && IDENT_START.test(next) && text[i - 1] !== ':') {
    return token('variable', identifierEnd(text, i + 1));
  }
  if (c === ';') return token('semicolon', i + 1);
  // psql's escapes: `\;` a semicolon that does not end the statement, `\:` a plain colon.
  if (c === '\\' && next === ';') return token('semicolon', i + 2, { escaped: true });
  if (c === '\\' && next === ':') return token('other', i + 2, { escaped: true });
  if (c === '$' || /[0-9]/.test(c)) {
    // A parameter ($1) or a number: digits, letters and dots together (1e5, 1.5), one token.
    let j = i + 1;
    while (j < text.length && /[A-Za-z0-9_.]/.test(text[j]!)) j++;
    return token('other', j);
  }
  return token('other', i + 1);
}

/**
 * The tokens of SQL text (no meta-commands: a backslash is an `other` token, `\;` an escaped semicolon).
 * Concatenated, their texts are the input.
 */
export function sqlTokens(text: string): SqlToken[] {
  const tokens: SqlToken[] = [];
  for (let i = 0; i < text.length;) {
    const t = tokenAt(text, i);
    tokens.push(t);
    i += t.text.length;
  }
  return tokens;
}

/** One piece of a pgbench script: SQL up to its end, or a meta-command. */
export type ScriptPiece =
  | {
      kind: 'sql';
      /** The statement's tokens, its final `;` not included. */
      tokens: SqlToken[];
      /** How it ended: a `;`, a meta-command (`\gset` ends the query before it), or the end of the script. */
      end: 'semicolon' | 'meta' | 'eof';
    }
  | {
      kind: 'meta';
      /** The meta-command's name, without the backslash (`set`, `gset`, `startpipeline`). */
      name: string;
      /** Its text as written, continuation lines included. */
      text: string;
    };

/** Keywords psql counts at the start of a statement to find function bodies (CREATE OR REPLACE FUNCTION). */
const BODY_WORDS = new Set(['create', 'or', 'replace', 'function', 'procedure']);

/**
 * A pgbench script as pgbench reads it: SQL statements (each up to its `;`, outside quotes, comments,
 * parentheses and function bodies) and meta-commands (from a backslash to the end of the line, over lines
 * that end in a backslash). Statements that are only whitespace and comments are left out.
 */
export function scriptPieces(text: string): ScriptPiece[] {
  const pieces: ScriptPiece[] = [];
  let current: SqlToken[] = [];
  let parens = 0;
  let beginDepth = 0;
  let words: string[] = [];
  const endStatement = (end: 'semicolon' | 'meta' | 'eof') => {
    if (current.some((t) => t.kind !== 'space' && t.kind !== 'comment')) {
      pieces.push({ kind: 'sql', tokens: current, end });
    }
    current = [];
    parens = 0;
    beginDepth = 0;
    words = [];
  };
  let i = 0;
  while (i < text.length) {
    const token = tokenAt(text, i);
    if (token.kind === 'other' && token.text === '\\') {
      // A meta-command ends the SQL before it and runs to the end of its line, on over lines that end in
      // a backslash.
      endStatement('meta');
      let end = i;
      for (;;) {
        const nl = text.indexOf('\n', end);
        if (nl < 0) {
          end = text.length;
          break;
        }
        const line = text.slice(end, nl).replace(/\r$/, '');
        end = nl + 1;
        if (!line.endsWith('\\')) break;
      }
      const metaText = text.slice(i, end).replace(/\r?\n$/, '');
      pieces.push({ kind: 'meta', name: /^\\([A-Za-z_]*)/.exec(metaText)?.[1] ?? '', text: metaText });
      i = end;
      continue;
    }
    i += token.text.length;
    if (token.kind === 'other' && token.text === '(') parens++;
    else if (token.kind === 'other' && token.text === ')') parens = Math.max(0, parens - 1);
    else if (token.kind === 'identifier') {
      const word = token.text.toLowerCase();
      if (words.length < 4) words.push(BODY_WORDS.has(word) ? word : '');
      const body =
        words[0] === 'create' &&
        (words[1] === 'function' ||
          words[1] === 'procedure' ||
          (words[1] === 'or' &&
            words[2] === 'replace' &&
            (words[3] === 'function' || words[3] === 'procedure')));
      if (body && parens === 0) {
        if (word === 'begin') beginDepth++;
        else if (word === 'case' && beginDepth > 0) beginDepth++;
        else if (word === 'end' && beginDepth > 0) beginDepth--;
      }
    }
    if (token.kind === 'semicolon' && !token.escaped && parens === 0 && beginDepth === 0) {
      endStatement('semicolon');
      continue;
    }
    // psql starts counting the words of a statement again after `\;`.
    if (token.kind === 'semicolon' && token.escaped) words = [];
    current.push(token);
  }
  endStatement('eof');
  return pieces;
}

/**
 * A statement's tokens as one line: comments dropped, whitespace outside quotes collapsed to one space,
 * trimmed (the text inside strings, quoted identifiers and dollar quotes kept as written).
 */
export function statementText(tokens: readonly SqlToken[]): string {
  let out = '';
  let gap = false;
  for (const t of tokens) {
    if (t.kind === 'space' || t.kind === 'comment') {
      gap = true;
      continue;
    }
    if (gap && out !== '') out += ' ';
    gap = false;
    out += t.kind === 'semicolon' ? ';' : t.escaped ? t.text.slice(1) : t.text;
  }
  return out;
}

/** Why SQL text is not one complete statement, or undefined when it is. */
export function notOneStatement(sql: string): string | undefined {
  const tokens = sqlTokens(sql);
  const open = tokens.find((t) => t.unterminated);
  if (open) {
    return `it ends inside ${open.kind === 'comment' ? 'a comment' : open.kind === 'quoted-identifier' ? 'a quoted identifier' : 'a string'}`;
  }
  // One final `;` may end it; any other outside quotes and comments starts a second statement.
  const last = tokens.findLastIndex((t) => t.kind !== 'space' && t.kind !== 'comment');
  const semicolons = tokens.filter((t, i) => t.kind === 'semicolon' && !(i === last && !t.escaped));
  if (semicolons.length) return 'it holds more than one statement (a ; outside quotes and comments)';
  if (tokens.some((t) => t.kind === 'other' && t.text === '\\')) {
    return 'it holds a backslash outside quotes and comments (a meta-command)';
  }
  if (last < 0) return 'it is empty';
  return undefined;
}
