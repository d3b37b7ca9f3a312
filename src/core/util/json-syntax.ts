/**
 * Where a text stops being JSON, said without quoting it. JSON.parse's own messages quote the text around
 * the fault (`Unexpected token 'r', "root:x:0:0"... is not valid JSON`), so a results path that is a
 * symlink to another file would print that file's first bytes; these messages name the line, the column
 * and what was expected there, never a character of the text.
 *
 * One pass over the text with an explicit stack (no recursion, so nesting depth costs no call stack), run
 * only after JSON.parse has refused the text. Complexity: O(length of the text).
 *
 * @example jsonSyntaxError('{"a": tru}') === 'line 1, column 7: an unexpected character (expected a value)'
 */

/** Where the text stops being JSON: the 0-based offset, the 1-based line and column, and what went wrong. */
export interface JsonSyntaxFault {
  offset: number;
  line: number;
  column: number;
  problem: string;
}

/** A one-line description of the first fault in `text`, e.g. "line 3, column 14: ...". */
export function jsonSyntaxError(text: string): string {
  const fault = findJsonSyntaxFault(text);
  if (!fault) return 'not valid JSON';
  return `line ${fault.line}, column ${fault.column}: ${fault.problem}`;
}

class Fault {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** The first place `text` is not JSON, or undefined when it is JSON. */
export function findJsonSyntaxFault(text: string): JsonSyntaxFault | undefined {
  try {
    scan(text);
    return undefined;
  } catch (e) {
    if (!(e instanceof Fault)) throw e;
    const before = text.slice(0, e.offset);
    const line = before.split('\n').length;
    const column = e.offset - (before.lastIndexOf('\n') + 1) + 1;
    return { offset: e.offset, line, column, problem: e.problem };
  }
}

function scan(text: string): void {
  const n = text.length;
  let i = 0;
  const stack: Array<'object' | 'array'> = [];
  const skipSpace = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const end = (what: string) => new Fault(n, `the text ends where ${what} was expected`);
  const string = () => {
    i++; // the opening quote
    for (;;) {
      if (i >= n) throw end('the end of a string (")');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) throw new Fault(i, 'a control character inside a string (write it escaped)');
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === undefined) throw end('an escape');
        if ('"\\/bfnrt'.includes(e)) i += 2;
        else if (e === 'u' && HEX4.test(text.slice(i + 2, i + 6))) i += 6;
        else throw new Fault(i, 'an invalid escape in a string');
      } else {
        i++;
      }
    }
  };
  type State = 'value' | 'key' | 'after';
  let state: State = 'value';
  for (;;) {
    skipSpace();
    if (state === 'value') {
      if (i >= n) throw end('a value');
      const c = text[i]!;
      if (c === '{' || c === '[') {
        stack.push(c === '{' ? 'object' : 'array');
        i++;
        skipSpace();
        if (text[i] === (c === '{' ? '}' : ']')) {
          stack.pop();
          i++;
          state = 'after';
        } else {
          state = c === '{' ? 'key' : 'value';
        }
      } else if (c === '"') {
        string();
        state = 'after';
      } else if (c === '-' || (c >= '0' && c <= '9')) {
        NUMBER.lastIndex = i;
        if (!NUMBER.test(text)) throw new Fault(i, 'an invalid number');
        i = NUMBER.lastIndex;
        state = 'after';
      } else {
        const word = ['true', 'false', 'null'].find((w) => text.startsWith(w, i));
        if (!word) throw new Fault(i, 'an unexpected character (expected a value)');
        i += word.length;
        state = 'after';
      }
    } else if (state === 'key') {
      if (i >= n) throw end('a property name');
      if (text[i] !== '"')
        throw new Fault(i, 'an unexpected character (expected a property name in double quotes)');
      string();
      skipSpace();
      if (i >= n) throw end("':'");
      if (text[i] !== ':') throw new Fault(i, "an unexpected character (expected ':' after a property name)");
      i++;
      state = 'value';
    } else {
      const top = stack.at(-1);
      if (top === undefined) {
        if (i < n) throw new Fault(i, 'more text after the JSON value');
        return;
      }
      const close = top === 'object' ? '}' : ']';
      if (i >= n) throw end(`',' or '${close}'`);
      if (text[i] === ',') {
        i++;
        state = top === 'object' ? 'key' : 'value';
      } else if (text[i] === close) {
        stack.pop();
        i++;
      } else {
        throw new Fault(i, `an unexpected character (expected ',' or '${close}')`);
      }
    }
  }
}
