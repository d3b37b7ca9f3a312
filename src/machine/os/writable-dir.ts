/**
 * Directories pgperf writes into, made and checked before anything starts (no build, no server): each path
 * a user gives (`--out`, `--store`, `--cache-dir`, `--tmp-dir`, the Action's `results-dir`, ...) is created if
 * it may be, and a file is created in it and removed again, so a path that cannot hold files is refused in
 * well under a second with the OS error, instead of failing (or hanging) after both clusters were loaded.
 *
 * `makeDirectory` is mkdir -p without node's `recursive: true`: node 20's recursive mkdir retries forever on a
 * path whose parent exists but refuses the child with ENOENT (any path under /proc: `mkdir /proc/x` is
 * ENOENT although /proc exists), spinning a libuv thread per call at 100% CPU while its promise never
 * settles. Here each missing level is made once, from the deepest existing ancestor down, so the work is
 * bounded by the path's depth and every failure is an error.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rm, rmdir, stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import { UserError, errorMessage } from '../../core/util/errors.js';

export interface MakeDirectoryOptions {
  /** Make every created directory 0755 whatever the umask (a build cache that other users must reach). */
  public?: boolean;
}

/**
 * Creates `dir` and its missing parents; returns the first directory it created (undefined: it existed).
 * Throws the OS error of the step that failed (with `code` and `path`), e.g. ENOTDIR when a file is in the way.
 */
export async function makeDirectory(
  dir: string,
  options: MakeDirectoryOptions = {},
): Promise<string | undefined> {
  const missing: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(d)).isDirectory();
    } catch (e) {
      if (errnoOf(e) !== 'ENOENT' || d === path.dirname(d)) throw e;
      missing.push(d);
      continue;
    }
    if (!isDirectory) throw osError('ENOTDIR', 'not a directory', 'mkdir', d);
    break;
  }
  missing.reverse();
  for (const d of missing) {
    try {
      await mkdir(d);
    } catch (e) {
      // Made meanwhile by someone else: fine when it is a directory.
      const made = errnoOf(e) === 'EEXIST' && (await stat(d).catch(() => undefined))?.isDirectory();
      if (!made) throw e;
      continue;
    }
    if (options.public) await chmod(d, 0o755);
  }
  return missing[0];
}

/** What is wrong with a directory pgperf was to write into: the OS error's name and one sentence. */
export interface DirectoryProblem {
  /** ENOENT, EPERM, EACCES, EROFS, ENOTDIR, ... */
  code: string;
  /** E.g. "cannot create /proc/x: ENOENT (no such file or directory); /proc is the kernel's proc ...". */
  text: string;
  /** The path itself is a file (so the caller can say "is a file"). */
  isFile?: boolean;
  /** The path does not exist (only when it was not to be created). */
  missing?: boolean;
}

export interface ProbeOptions extends MakeDirectoryOptions {
  /** Create the directory when it is missing (default true); false: a missing one is a problem. */
  create?: boolean;
}

/**
 * Makes `dir` (unless `create: false`) and proves that a file can be created in it (created exclusively,
 * written, removed). Resolves to undefined when it can, else to the problem. Leaves nothing behind: the
 * directories it made for the probe are removed again (the command makes them when it writes), so a refusal
 * of another input after this check leaves no empty results directory.
 */
export async function probeDirectory(
  dir: string,
  options: ProbeOptions = {},
): Promise<DirectoryProblem | undefined> {
  const target = path.resolve(dir);
  const made: string[] = [];
  try {
    return await probe(target, options, made);
  } finally {
    // Deepest first; rmdir only removes what is still empty (never what someone put there meanwhile).
    for (const d of made.reverse()) await rmdir(d).catch(() => {});
  }
}

async function probe(
  target: string,
  options: ProbeOptions,
  made: string[],
): Promise<DirectoryProblem | undefined> {
  const existing = await stat(target).catch((e: unknown) => e as NodeJS.ErrnoException);
  if (!(existing instanceof Error) && !existing.isDirectory()) {
    return { code: 'ENOTDIR', text: `${target} is a file, not a directory`, isFile: true };
  }
  if (existing instanceof Error) {
    const code = errnoOf(existing);
    if (code === 'ENOTDIR') return inTheWay(target);
    if (code !== 'ENOENT') return problem(existing, 'cannot reach it', target);
    if (options.create === false) return { code: 'ENOENT', text: 'no such directory', missing: true };
    for (let d = target; (await stat(d).catch(() => undefined)) === undefined; d = path.dirname(d)) {
      made.push(d);
      if (d === path.dirname(d)) break;
    }
    made.reverse();
    try {
      await makeDirectory(target, options);
    } catch (e) {
      if (errnoOf(e) === 'ENOTDIR') return inTheWay(target);
      const failed = (e as { path?: string }).path ?? target;
      return problem(e, `cannot create ${failed}`, failed);
    }
  }
  const file = path.join(target, `.pgperf-write-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const handle = await open(file, 'wx', 0o600);
    try {
      await handle.writeFile('pgperf\n');
    } finally {
      await handle.close();
    }
  } catch (e) {
    await rm(file, { force: true }).catch(() => {});
    return problem(e, `cannot create a file in ${target}`, target);
  }
  try {
    await rm(file);
  } catch (e) {
    return problem(e, `cannot remove the test file ${file} it wrote`, target);
  }
  return undefined;
}

/** How a refused directory is named in the error: its flag or input and what it is for. */
export interface DirectoryUse extends ProbeOptions {
  /** The flag, input or variable that gave the path: "--out", "input 'results-dir'", "PGPERF_CACHE_DIR". */
  what: string;
  /** What was expected there: "a directory for the results (created if missing)". */
  expected: string;
}

/**
 * probeDirectory, refused as a UserError naming the flag, the path, the OS error and what was expected:
 * "--out /proc/x: cannot create /proc/x: ENOENT (no such file or directory); /proc is the kernel's proc file
 * system, not a place for files: choose a directory on a disk; expected a directory for the results (created
 * if missing)".
 */
export async function checkWritableDirectory(dir: string, use: DirectoryUse): Promise<void> {
  const found = await probeDirectory(dir, use);
  if (!found) return;
  const text = found.isFile ? 'is a file' : found.text;
  throw new UserError(`${use.what} ${dir}: ${text}; expected ${use.expected}`);
}

/** A file where a directory of the path should be: "cannot create it: /r/a-file is a file (ENOTDIR)". */
async function inTheWay(target: string): Promise<DirectoryProblem> {
  for (let d = path.dirname(target); d !== path.dirname(d); d = path.dirname(d)) {
    const st = await stat(d).catch(() => undefined);
    if (st && !st.isDirectory())
      return { code: 'ENOTDIR', text: `cannot create it: ${d} is a file, not a directory (ENOTDIR)` };
  }
  return { code: 'ENOTDIR', text: 'cannot create it: ENOTDIR (not a directory)' };
}

async function kernelFsHint(p: string): Promise<string> {
  // The deepest existing ancestor tells the file system the path would be on.
  for (let d = p; ; d = path.dirname(d)) {
    const fs = await statfs(d).catch(() => undefined);
    if (fs) {
      const name = KERNEL_FILE_SYSTEMS.get(Number(fs.type));
      return name
        ? `; ${d} is the kernel's ${name} file system, not a place for files: choose a directory on a disk`
        : '';
    }
    if (d === path.dirname(d)) return '';
  }
}

/** Pseudo file systems by their statfs magic (linux/magic.h): a path there never holds a results file. */
const KERNEL_FILE_SYSTEMS = new Map<number, string>([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x1cd1, 'devpts'],
  [0xcafe4a11, 'bpf'],
]);

async function problem(e: unknown, what: string, where: string): Promise<DirectoryProblem> {
  const code = errnoOf(e) ?? 'EIO';
  return { code, text: `${what}: ${describeOsError(e)}${await kernelFsHint(where)}` };
}

/** "ENOENT (no such file or directory)" from node's "ENOENT: no such file or directory, mkdir '/proc/x'". */
export function describeOsError(e: unknown): string {
  const code = errnoOf(e);
  const message = errorMessage(e);
  if (!code) return message;
  const text = new RegExp(`^${code}: ([^,]+)`).exec(message)?.[1];
  return `${code} (${text ?? message})`;
}

function errnoOf(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

function osError(code: string, text: string, syscall: string, p: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${text}, ${syscall} '${p}'`), { code, syscall, path: p });
}
