/**
 * The `/pgperf` PR comment commands: a small grammar, parsed from the comment's first line only. Pure: the
 * adapter checks who wrote it (the API, never the text), whether the named workloads exist, and acts.
 *
 *   /pgperf run [workloads=a,b] [clients=1,64] [rounds=N]
 *   /pgperf rerun <workload>@<clients>
 *   /pgperf accept <workload>[@<clients>] <reason>
 *   /pgperf attribute <from>..<to> [workloads=a,b]
 *   /pgperf help
 *
 * Numbers are held to the bounds every other source of them has (src/core/bounds.ts): a comment cannot ask
 * for more rounds or clients than a flag, an input or a workload file can.
 */
import { CLIENTS, CLIENT_COUNTS, ROUNDS, rangeText, type Bound } from './bounds.js';

export type PgperfCommand =
  | { kind: 'help' }
  | { kind: 'run'; workloads?: string[]; clients?: number[]; rounds?: number }
  | { kind: 'rerun'; workload: string; clients: number }
  | { kind: 'accept'; workload: string; clients?: number; reason: string }
  /** The refs as written (their syntax is checked where refs are: postgres/builds/ref-name.ts). */
  | { kind: 'attribute'; from: string; to: string; workloads?: string[] };

/** A comment that is a command: parsed, or the one-line problem with it. `text` is the command line. */
export type ParsedCommand =
  { ok: true; command: PgperfCommand; text: string } | { ok: false; problem: string; text: string };

/** The accepted words, said in every reply to a command that is not one. */
export const COMMAND_GRAMMAR = [
  '`/pgperf run [workloads=a,b] [clients=1,64] [rounds=N]`: compare the PR head with its base',
  '`/pgperf rerun <workload>@<clients>`: measure one cell again',
  '`/pgperf accept <workload>[@<clients>] <reason>`: accept the regression of those cells for this head commit',
  "`/pgperf attribute <from>..<to> [workloads=a,b]`: name the commits of the base repository's range that moved the instructions per transaction",
  '`/pgperf help`: this list',
];

/** Longest accepted reason, in characters (a sentence, not an essay: it is repeated in the status). */
const MAX_REASON_LENGTH = 300;
/** Longest command line read at all; longer lines are refused before they are split. */
const MAX_LINE_LENGTH = 1000;
/** A workload name, as the workload file's `name` field allows. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const PREFIX = '/pgperf';
const RUN_OPTIONS = ['workloads', 'clients', 'rounds'] as const;

/**
 * The command of a comment body, or undefined when the comment is no command (its first line does not
 * start with `/pgperf` followed by a space or its end).
 */
export function parsePgperfCommand(body: string): ParsedCommand | undefined {
  const line = (body.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '').trim();
  if (!line.startsWith(PREFIX) || (line.length > PREFIX.length && !/\s/.test(line[PREFIX.length]!))) {
    return undefined;
  }
  const text = line.length > MAX_LINE_LENGTH ? `${line.slice(0, 60)}…` : line;
  const fail = (problem: string): ParsedCommand => ({ ok: false, problem, text });
  if (line.length > MAX_LINE_LENGTH) return fail(`the command is longer than ${MAX_LINE_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b-\u001f\u007f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/.test(line)) {
    return fail('the command contains control or bidirectional characters');
  }
  const [verb, ...args] = line.slice(PREFIX.length).trim().split(/\s+/).filter(Boolean);
  try {
    const command = parseVerb(verb, args);
    return { ok: true, command, text };
  } catch (e) {
    if (e instanceof CommandProblem) return fail(e.message);
    throw e;
  }
}

class CommandProblem extends Error {}

function parseVerb(verb: string | undefined, args: string[]): PgperfCommand {
  switch (verb) {
    case undefined:
      throw new CommandProblem('no command after /pgperf');
    case 'help':
      if (args.length > 0) throw new CommandProblem(`'help' takes nothing, got '${args[0]}'`);
      return { kind: 'help' };
    case 'run':
      return parseRun(args);
    case 'rerun': {
      if (args.length !== 1) {
        throw new CommandProblem(`'rerun' takes one <workload>@<clients>, got ${args.length} words`);
      }
      const cell = parseCell(args[0]!, true);
      return { kind: 'rerun', workload: cell.workload, clients: cell.clients! };
    }
    case 'accept': {
      if (args.length === 0) throw new CommandProblem("'accept' needs <workload>[@<clients>] and a reason");
      const cell = parseCell(args[0]!, false);
      const reason = args.slice(1).join(' ');
      if (reason === '') {
        throw new CommandProblem(`'accept ${args[0]}' needs a reason: say why the regression is acceptable`);
      }
      if (reason.length > MAX_REASON_LENGTH) {
        throw new CommandProblem(`the reason is longer than ${MAX_REASON_LENGTH} characters`);
      }
      return { kind: 'accept', ...cell, reason };
    }
    case 'attribute':
      return parseAttribute(args);
    default:
      throw new CommandProblem(
        `unknown command '${clipWord(verb)}': expected run, rerun, accept, attribute or help`,
      );
  }
}

function parseRun(args: string[]): PgperfCommand {
  const seen = new Set<string>();
  const run: { workloads?: string[]; clients?: number[]; rounds?: number } = {};
  for (const arg of args) {
    const eq = arg.indexOf('=');
    const key = eq < 0 ? arg : arg.slice(0, eq);
    const value = eq < 0 ? '' : arg.slice(eq + 1);
    if (!(RUN_OPTIONS as readonly string[]).includes(key) || eq < 0) {
      throw new CommandProblem(
        `unknown option '${clipWord(arg)}' of 'run': expected ${RUN_OPTIONS.map((o) => `${o}=`).join(', ')}`,
      );
    }
    if (seen.has(key)) throw new CommandProblem(`option '${key}' given twice`);
    seen.add(key);
    const items = value.split(',');
    if (key === 'workloads') {
      for (const w of items) {
        if (!NAME.test(w)) {
          throw new CommandProblem(
            `workloads=: '${clipWord(w)}' is no workload name (letters, digits, ".", "_", "-")`,
          );
        }
      }
      if (new Set(items).size !== items.length) throw new CommandProblem('workloads=: a name repeats');
      run.workloads = items;
    } else if (key === 'clients') {
      if (items.length > CLIENT_COUNTS.max) {
        throw new CommandProblem(`clients=: at most ${CLIENT_COUNTS.max} client counts, got ${items.length}`);
      }
      run.clients = items.map((c) => positive(c, 'clients=', CLIENTS));
      if (new Set(run.clients).size !== run.clients.length) {
        throw new CommandProblem('clients=: client counts must not repeat');
      }
    } else {
      if (items.length !== 1) throw new CommandProblem(`rounds=: one whole number >= 1, got '${value}'`);
      run.rounds = positive(value, 'rounds=', ROUNDS);
    }
  }
  return { kind: 'run', ...run };
}

/** `attribute <from>..<to> [workloads=a,b]`: two refs around `..`, then the workloads as `run` names them. */
function parseAttribute(args: string[]): PgperfCommand {
  const [range, ...options] = args;
  const ends = range?.split('..');
  if (!range || range.includes('...') || ends!.length !== 2 || ends!.some((e) => e === '')) {
    throw new CommandProblem(
      `'attribute' needs a range <from>..<to> (e.g. REL_17_0..REL_18_0)${range ? `, got '${clipWord(range)}'` : ''}`,
    );
  }
  for (const o of options) {
    if (!o.startsWith('workloads=')) {
      throw new CommandProblem(`unknown option '${clipWord(o)}' of 'attribute': expected workloads=`);
    }
  }
  if (options.length > 1) throw new CommandProblem("option 'workloads' given twice");
  const run = options.length > 0 ? parseRun(options) : undefined;
  const workloads = run && run.kind === 'run' ? run.workloads : undefined;
  return { kind: 'attribute', from: ends![0]!, to: ends![1]!, ...(workloads ? { workloads } : {}) };
}

function parseCell(word: string, needClients: boolean): { workload: string; clients?: number } {
  const at = word.indexOf('@');
  const workload = at < 0 ? word : word.slice(0, at);
  if (!NAME.test(workload)) {
    throw new CommandProblem(
      `'${clipWord(word)}' is no <workload>${needClients ? '@<clients>' : '[@<clients>]'} (e.g. select-only@64)`,
    );
  }
  if (at < 0) {
    if (needClients) throw new CommandProblem(`'${clipWord(word)}' needs @<clients>, e.g. ${workload}@64`);
    return { workload };
  }
  return { workload, clients: positive(word.slice(at + 1), `'${clipWord(word)}': clients`, CLIENTS) };
}

/**
 * A whole number >= 1 written in digits only (no 1e3, 0x10, +4 or 4.0), within its bound: a number above
 * it names the range.
 */
function positive(text: string, what: string, bound: Bound): number {
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || n < 1) {
    throw new CommandProblem(`${what}: '${clipWord(text)}' is not a whole number >= 1`);
  }
  if (n > bound.max) {
    throw new CommandProblem(
      `${what}: '${clipWord(text)}' is out of range: a whole number ${rangeText(bound)}`,
    );
  }
  return n;
}

function clipWord(word: string): string {
  return word.length > 40 ? `${word.slice(0, 40)}…` : word;
}
