/**
 * Runs the built CLI (dist/cli.js) as a user would, collecting its output, and builds its arguments. With
 * `source: true`, or PGPERF_TEST_CLI=src set for the whole test run, the source (src/cli.ts through tsx)
 * runs instead: the same process, signals and output, before a build.
 */
import type { Decision } from '../../src/core/compare/decision/decision.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RunResult } from '../../src/core/results/result-types.js';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const CLI = path.join(ROOT, 'dist/cli.js');
/** The CLI's source, run through tsx. */
export const CLI_SOURCE = path.join(ROOT, 'src/cli.ts');
/** The shipped smoke workload's file. */
export const SMOKE = path.join(ROOT, 'workloads/smoke.yml');

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  cwd?: string;
  /** The whole environment of the child (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Called with all of stderr so far each time it grows (to act at a point of the run, e.g. signal it). */
  onStderr?: (stderr: string, child: ChildProcess) => void;
  /** SIGKILL the child after this long: a run that does not stop must not outlive its test. */
  killAfterMs?: number;
  /** Run src/cli.ts (through tsx) instead of dist/cli.js. */
  source?: boolean;
}

export function runCli(args: string[], options: RunCliOptions = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const source = options.source === true || process.env.PGPERF_TEST_CLI === 'src';
    // tsx by its own file: the child's cwd (a test's temp dir) has no node_modules to find it from.
    const entry = source ? ['--import', import.meta.resolve('tsx'), CLI_SOURCE] : [CLI];
    const child = spawn(process.execPath, [...entry, ...args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
    });
    const guard = options.killAfterMs
      ? setTimeout(() => child.kill('SIGKILL'), options.killAfterMs)
      : undefined;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      options.onStderr?.(stderr, child);
    });
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * This environment with `home` as HOME and no PGPERF_STORE nor XDG_DATA_HOME: the CLI's default store
 * lands in `home`, never in the user's.
 */
export function isolatedEnv(home: string): NodeJS.ProcessEnv {
  const { PGPERF_STORE: _ignored, ...inherited } = process.env;
  return { ...inherited, HOME: home, XDG_DATA_HOME: '' };
}

/** `--arm LABEL=binDir` for each label: one install as every arm (default base and head). */
export function sameInstallArms(binDir: string, labels = ['base', 'head']): string[] {
  return labels.flatMap((label) => ['--arm', `${label}=${binDir}`]);
}

export type FlagValue = string | number | boolean | string[] | undefined;

/**
 * Command-line flags from an object, in its order: `{ rounds: 3, force: true, set: ['a=1', 'b=2'] }` is
 * `--rounds 3 --force --set a=1 --set b=2`, a camelCase key is a kebab-case flag, false and undefined add
 * nothing.
 */
export function flags(values: Record<string, FlagValue>): string[] {
  return Object.entries(values).flatMap(([key, value]) => {
    const flag = `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    if (value === undefined || value === false) return [];
    if (value === true) return [flag];
    if (Array.isArray(value)) return value.flatMap((v) => [flag, v]);
    return [flag, String(value)];
  });
}

/** `pgperf run` with `binDir` as both arms (base and head), then the `values` as flags. */
export function sameInstallRun(binDir: string, values: Record<string, FlagValue>): string[] {
  return ['run', ...sameInstallArms(binDir), ...flags(values)];
}

/**
 * `pgperf run` of `workload` with one install as both arms (base and head), a fixed seed, no store, the
 * results under `out` and the clusters under `tmpDir`; `extra` flags follow.
 */
export function sameInstallRunArgs(
  binDir: string,
  tmpDir: string,
  workload: string,
  out: string,
  extra: string[] = [],
): string[] {
  return [...sameInstallRun(binDir, { workload, seed: 7, noStore: true, out, tmpDir }), ...extra];
}

/** The results.json of the one run a `--out` directory holds. */
export async function onlyResultsFile(out: string): Promise<string> {
  const [run] = await readdir(out);
  return path.join(out, run!, 'results.json');
}

/** The results document and the decision beside it of the one run a `--out` directory holds. */
export async function onlyRunDocuments(
  out: string,
): Promise<{ file: string; result: RunResult; decision: Decision }> {
  const file = await onlyResultsFile(out);
  const result = JSON.parse(await readFile(file, 'utf8')) as RunResult;
  const decision = JSON.parse(
    await readFile(path.join(path.dirname(file), 'decision.json'), 'utf8'),
  ) as Decision;
  return { file, result, decision };
}

/** The results document of the one run a `--out` directory holds. */
export async function onlyResults(out: string): Promise<RunResult> {
  return JSON.parse(await readFile(await onlyResultsFile(out), 'utf8')) as RunResult;
}
