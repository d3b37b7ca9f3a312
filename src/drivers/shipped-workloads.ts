/**
 * The workloads shipped with pgperf (workloads/*.yml), and the one rule both adapters use to read a workload
 * reference (the CLI's --workload, the Action's input 'workloads'): an existing file is that file, else a
 * bare name is the shipped workload of that name, else the reference is refused naming the shipped ones.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../core/util/errors.js';

/** Names of the shipped workloads (file names without .yml), sorted. */
export function shippedWorkloadNames(workloadsDir: string): string[] {
  try {
    return readdirSync(workloadsDir)
      .filter((f) => f.endsWith('.yml'))
      .map((f) => f.slice(0, -4))
      .sort();
  } catch {
    return [];
  }
}

/**
 * The workloads/ directory of this installation: the nearest one above this module that holds the workload
 * schema (dist/cli.js and src/drivers/ sit at different depths below it). Undefined when none is found.
 */
export function defaultWorkloadsDir(from = path.dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'workloads');
    if (existsSync(path.join(candidate, 'workload.schema.json'))) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The file of a shipped workload; an unknown name is refused listing the shipped ones. `what` names
 * the source in the message (e.g. "input 'workloads'").
 */
export function shippedWorkloadFile(name: string, workloadsDir: string, what: string): string {
  const file = shippedFile(name, workloadsDir);
  if (file) return file;
  throw new UserError(
    `${what}: no shipped workload is named '${name}' (shipped: ${shippedList(workloadsDir)}); ` +
      'give one of those names or the path of a workload file',
  );
}

export interface WorkloadLookup {
  /** How the adapter spells the source, for messages: "--workload", "input 'workloads'". */
  what: string;
  /** Relative paths are resolved against it (the Action's workspace); the current directory by default. */
  baseDir?: string;
  /** The shipped workloads (defaultWorkloadsDir() by default). */
  workloadsDir?: string;
}

/**
 * The workload file a reference names: `ref` itself when it is an existing file (relative to `baseDir`),
 * else the shipped workload named `ref` (select-only -> workloads/select-only.yml). Throws a UserError
 * naming the reference, the shipped names and that a path to a workload file is accepted otherwise.
 *
 * @example resolveWorkloadFile('select-only', { what: '--workload' }) // '/…/workloads/select-only.yml'
 */
export function resolveWorkloadFile(ref: string, lookup: WorkloadLookup): string {
  const file = path.resolve(lookup.baseDir ?? '.', ref);
  const { kind, code } = fileKind(file);
  if (kind === 'file') return file;
  const workloadsDir = lookup.workloadsDir ?? defaultWorkloadsDir();
  const shipped = workloadsDir ? shippedFile(ref, workloadsDir) : undefined;
  if (shipped) return shipped;
  const names = workloadsDir ? shippedList(workloadsDir) : 'none found';
  if (kind === 'missing' && !isBareName(ref)) {
    // A path (a directory part or a .yml name) cannot be a shipped name: say what the file system said.
    throw new UserError(
      `${lookup.what}: workload file ${file}: cannot read it (${code}); give the path of a workload file, ` +
        `or the name of a shipped workload (shipped: ${names})`,
    );
  }
  const problem =
    kind === 'directory'
      ? 'is a directory, not a workload file, and no shipped workload has that name'
      : 'is neither a file nor the name of a shipped workload';
  throw new UserError(
    `${lookup.what}: '${ref}' ${problem} (shipped: ${names}); ` +
      'give one of those names or the path of a workload file (.yml)',
  );
}

/** A name a shipped workload could have: no directory part, no .yml/.yaml extension. */
function isBareName(ref: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(ref) && !/\.ya?ml$/.test(ref);
}

/** The shipped file of a bare name (no directory part, no extension), if there is one. */
function shippedFile(name: string, workloadsDir: string): string | undefined {
  if (!isBareName(name)) return undefined;
  const file = path.join(workloadsDir, `${name}.yml`);
  return fileKind(file).kind === 'file' ? file : undefined;
}

function shippedList(workloadsDir: string): string {
  return shippedWorkloadNames(workloadsDir).join(', ') || 'none found';
}

/** What is at a path; `code` says why nothing usable is (ENOENT, EACCES, ...). */
function fileKind(file: string): { kind: 'file' | 'directory' | 'missing'; code?: string } {
  try {
    return { kind: statSync(file).isDirectory() ? 'directory' : 'file' };
  } catch (e) {
    return { kind: 'missing', code: (e as NodeJS.ErrnoException).code ?? 'unreadable' };
  }
}
