/** Flag parsers that teach: each error names the flag, the bad value and the expected form. */
import { InvalidArgumentError, type Command } from 'commander';
import { settingProblem } from '../../core/results/settings.js';
import { refNameProblem } from '../../postgres/builds/ref-name.js';
import { runAsNameProblem } from '../../postgres/cluster/run-as.js';
import { CLIENTS, CLIENT_COUNTS, DURATION_S, ROUNDS, rangeText, type Bound } from '../../core/bounds.js';
import { defaultWorkloadsDir, shippedWorkloadNames } from '../../drivers/shipped-workloads.js';

/**
 * The help of every --workload that reads workloads (run, nightly, calibrate, plan, bisect): a file, or the
 * name of a shipped workload, as the Action's input 'workloads' (drivers/load-workload.ts loadWorkload).
 */
export function workloadOptionHelp(what = 'workload files', one = false): string {
  const dir = defaultWorkloadsDir();
  const names = dir ? shippedWorkloadNames(dir) : [];
  if (names.length === 0) return what;
  return `${what}, or ${one ? 'the name of a shipped workload' : 'names of shipped workloads'}: ${names.join(', ')}`;
}

/**
 * A flag that takes a whole number >= 1; with a bound (src/core/bounds.ts), a number above it is refused
 * naming the range, while commander parses the flags, before the command starts.
 */
export function positiveInt(flag: string, bound?: Bound) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n <= 0) {
      throw new InvalidArgumentError(`${flag} must be a positive integer, got '${printable(value)}'`);
    }
    return checkBound(flag, value, n, bound);
  };
}

/** A flag that takes a whole number >= 0, within its bound when it has one. */
export function nonNegativeInt(flag: string, bound?: Bound) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) {
      throw new InvalidArgumentError(`${flag} must be a whole number >= 0, got '${printable(value)}'`);
    }
    return checkBound(flag, value, Number(value), bound);
  };
}

function checkBound(flag: string, value: string, n: number, bound: Bound | undefined): number {
  if (bound && (n < bound.min || n > bound.max)) {
    throw new InvalidArgumentError(
      `${flag} must be a whole number ${rangeText(bound)}, got '${printable(value)}'`,
    );
  }
  if (!Number.isSafeInteger(n)) {
    throw new InvalidArgumentError(`${flag} must be a whole number below 2^53, got '${printable(value)}'`);
  }
  return n;
}

/**
 * A flag that takes a client-count sweep, e.g. `--clients 1,4,64`: distinct whole numbers, each within
 * CLIENTS, at most CLIENT_COUNTS of them (the rules of the Action's `client-counts`), in the order given.
 */
export function clientCounts(flag: string) {
  return (value: string): number[] => {
    const items = value.split(',').map((s) => s.trim());
    const bad = items.find((s) => !/^\d+$/.test(s) || Number(s) < CLIENTS.min || Number(s) > CLIENTS.max);
    if (bad !== undefined) {
      throw new InvalidArgumentError(
        `${flag} must be client counts separated by commas (e.g. 1,4,64), each a whole number ${rangeText(CLIENTS)}; got '${printable(value)}' (bad: '${printable(bad)}')`,
      );
    }
    const counts = items.map(Number);
    const seen = new Set<number>();
    const repeated = counts.find((n) => seen.has(n) || !seen.add(n));
    if (repeated !== undefined) {
      throw new InvalidArgumentError(
        `${flag} must give each client count once, got '${printable(value)}' (${repeated} twice)`,
      );
    }
    if (counts.length > CLIENT_COUNTS.max) {
      throw new InvalidArgumentError(
        `${flag} must give at most ${CLIENT_COUNTS.max} client counts (each is a cell every arm measures in every round), got ${counts.length}`,
      );
    }
    return counts;
  };
}

export interface ArmFlag {
  label: string;
  binDir: string;
}

/** --arm LABEL=BINDIR, repeatable. */
export function collectArm(value: string, previous: ArmFlag[] = []): ArmFlag[] {
  const m = /^([^=]+)=(.+)$/.exec(value);
  if (!m)
    throw new InvalidArgumentError(
      `--arm must be LABEL=BINDIR (e.g. base=/usr/lib/postgresql/15/bin), got '${printable(value)}'`,
    );
  return [...previous, { label: m[1]!, binDir: m[2]! }];
}

export interface SetFlag {
  arm: string;
  name: string;
  value: string;
}

/** --set ARM:NAME=VALUE, repeatable: a postgresql.conf setting for one arm only. */
export function collectSet(value: string, previous: SetFlag[] = []): SetFlag[] {
  const m = /^([^:=]+):([^=]+)=(.*)$/s.exec(value);
  if (!m) {
    throw new InvalidArgumentError(
      `--set must be ARM:NAME=VALUE (e.g. head:synchronous_commit=off), got '${printable(value)}'`,
    );
  }
  const [, arm, name, settingValue] = m as unknown as [string, string, string, string];
  const problem = settingProblem(name, settingValue);
  if (problem) throw new InvalidArgumentError(`--set ${printable(`${arm}:${name}`)}: ${problem}`);
  return [...previous, { arm, name, value: settingValue }];
}

export function oneOf<T extends string>(flag: string, allowed: readonly T[]) {
  return (value: string): T => {
    if (!(allowed as readonly string[]).includes(value)) {
      throw new InvalidArgumentError(
        `${flag} must be one of ${allowed.join(', ')}, got '${printable(value)}'`,
      );
    }
    return value as T;
  };
}

/** A value as it can be shown in one message line: control characters escaped. */
export function printable(value: string): string {
  const escaped = JSON.stringify(value).slice(1, -1);
  // A refusal quotes what was given, not a whole megabyte of it.
  return escaped.length > MAX_QUOTED
    ? `${escaped.slice(0, MAX_QUOTED)}… (${value.length} characters)`
    : escaped;
}

/** The characters of a flag's value a refusal quotes. */
const MAX_QUOTED = 100;

/** The flags of every command that measures: how long, where the results and the clusters go, as whom. */
export interface MeasureFlags {
  rounds?: number;
  duration?: number;
  out: string;
  runAs?: string;
  tmpDir?: string;
}

/**
 * --rounds, --duration, --out, --run-as and --tmp-dir, worded once for every command that measures (run,
 * calibrate, nightly, bisect). `rounds` and `out` replace the help of those two; `out: false` leaves --out
 * to the command.
 */
export function addMeasureOptions(
  command: Command,
  help: { rounds?: string; out?: string | false } = {},
): Command {
  command
    .option(
      '--rounds <n>',
      `${help.rounds ?? "rounds (overrides the workloads')"}; ${rangeText(ROUNDS)}`,
      positiveInt('--rounds', ROUNDS),
    )
    .option(
      '--duration <seconds>',
      `seconds per measured run (overrides the workloads'); ${rangeText(DURATION_S)}`,
      positiveInt('--duration', DURATION_S),
    );
  if (help.out !== false) command.option('--out <dir>', help.out ?? 'results directory', 'pgperf-results');
  return command
    .option(
      '--run-as <user>',
      'unprivileged user to run PostgreSQL as when pgperf is root (default: a dedicated user pgperf, created if missing)',
      runAsArg('--run-as'),
    )
    .option('--tmp-dir <dir>', 'where the clusters live while running (default: the OS temp dir)');
}

/** A repeatable flag's values, in order. */
export function collectString(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** A parser for a flag that takes a git ref (ref-name.ts): refused while the flags are read, before a fetch. */
export function refArg(flag: string): (value: string) => string {
  return (value) => {
    const problem = refNameProblem(flag, value);
    if (problem) throw new InvalidArgumentError(problem);
    return value;
  };
}

/** A parser for --run-as: root and what is no user name are refused while the flags are read, as any user. */
export function runAsArg(flag: string): (value: string) => string {
  return (value) => {
    const problem = runAsNameProblem(flag, value);
    if (problem) throw new InvalidArgumentError(problem);
    return value;
  };
}
