/**
 * The cachegrind output format (valgrind --tool=cachegrind, docs "Cachegrind output file format"): header
 * lines (`desc:`, `cmd:`, `events: Ir ...`), then `fl=<file>` and `fn=<function>` lines each followed by cost
 * lines `<line> <count per event>`, and a final `summary: <totals>`. A function's self cost is the sum of its
 * cost lines. Only the Ir column (instructions executed) is read.
 */

export interface CachegrindProfile {
  /** The `cmd:` line (for a forked backend, the postmaster's command). */
  command: string;
  /** Total instructions (the `summary:` line's Ir). */
  totalIr: number;
  /** Self Ir per function, keyed by functionKey(file, fn). */
  functions: Map<string, FunctionCost>;
}

export interface FunctionCost {
  fn: string;
  file: string;
  ir: number;
}

export function functionKey(file: string, fn: string): string {
  return `${fn}\u0000${file}`;
}

/** Parses a cachegrind output file; throws naming `what` (the file) when it has no Ir column or summary. */
export function parseCachegrind(text: string, what: string): CachegrindProfile {
  let command = '';
  let irColumn = -1;
  let totalIr: number | undefined;
  let file = '???';
  let current: FunctionCost | undefined;
  const functions = new Map<string, FunctionCost>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const first = line.charCodeAt(0);
    if (first >= 48 && first <= 57) {
      // A cost line: "<line number> <Ir> [<other events>...]"; absent trailing counts are zero.
      if (!current || irColumn < 0) continue;
      const fields = line.split(' ');
      current.ir += Number(fields[1 + irColumn] ?? 0);
    } else if (line.startsWith('fn=')) {
      const fn = line.slice(3);
      const key = functionKey(file, fn);
      current = functions.get(key);
      if (!current) {
        current = { fn, file, ir: 0 };
        functions.set(key, current);
      }
    } else if (line.startsWith('fl=')) {
      file = line.slice(3);
      current = undefined;
    } else if (line.startsWith('events:')) {
      irColumn = line.slice(7).trim().split(/\s+/).indexOf('Ir');
    } else if (line.startsWith('cmd:')) {
      command = line.slice(4).trim();
    } else if (line.startsWith('summary:')) {
      totalIr = Number(line.slice(8).trim().split(/\s+/)[irColumn]);
    }
  }
  if (irColumn < 0) throw new Error(`${what}: not a cachegrind file with an Ir event (no "events: Ir" line)`);
  if (totalIr === undefined || !Number.isFinite(totalIr)) {
    throw new Error(`${what}: no "summary:" line (the process may not have exited yet)`);
  }
  return { command, totalIr, functions };
}

/** Self Ir per function summed over several profiles (the backends of one run). */
export function sumProfiles(profiles: readonly CachegrindProfile[]): Map<string, FunctionCost> {
  const sum = new Map<string, FunctionCost>();
  for (const p of profiles) {
    for (const [key, f] of p.functions) {
      const s = sum.get(key);
      if (s) s.ir += f.ir;
      else sum.set(key, { ...f });
    }
  }
  return sum;
}
