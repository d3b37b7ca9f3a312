/**
 * The build cache: where mirrors, build trees, installs, ccache objects and logs live, the key an install
 * is cached under, an exclusive lock per key, and publishing an install so that a half-finished one is
 * never reused (moved into place in one rename, then a completion marker written last).
 *
 * Layout under the cache directory:
 *   git/<repo-hash>.git      bare mirrors, fetched shallow, reused by later runs
 *   builds/<slot>/           source, build tree, staging (removed once the build is done)
 *   installs/<slot>/         finished install prefixes; `.complete` (the build record) written last
 *   ccache/                  compiler cache shared by every build
 *   logs/<slot>.log          full log of the latest build of a slot
 *   locks/                   one lock file per slot and per mirror
 */
import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { chmod, cp, mkdir, readdir, readFile, readlink, rename, rm, statfs } from 'node:fs/promises';
import path from 'node:path';
import { writeAtomically } from '../../machine/os/atomic-write.js';
import { UserError } from '../../core/util/errors.js';
import type { Compiler, Platform } from './toolchain.js';

/**
 * mkdir -p with every created directory world-readable and -searchable whatever the umask: the user
 * PostgreSQL runs as must reach the installs.
 */
export async function mkdirPublic(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true });
  if (!first) return;
  for (let d = dir; ; d = path.dirname(d)) {
    await chmod(d, 0o755);
    if (d === first || d === path.dirname(d)) break;
  }
}

/** Name of the completion marker inside an install prefix. */
export const COMPLETE_MARKER = '.complete';
/** Free space a build needs in the cache directory: source, build tree, staging, install, ccache growth. */
export const MIN_FREE_BYTES = 2 * 1024 ** 3;

/**
 * `$PGPERF_CACHE_DIR`; else, as root, /var/cache/pgperf (the unprivileged user PostgreSQL runs as must
 * execute the installs, and /root is private); else `${XDG_CACHE_HOME:-~/.cache}/pgperf`.
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv, uid: number | undefined, home: string): string {
  if (env.PGPERF_CACHE_DIR) return path.resolve(env.PGPERF_CACHE_DIR);
  if (uid === 0) return '/var/cache/pgperf';
  return path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), 'pgperf');
}

export interface CacheLayout {
  root: string;
  git: string;
  builds: string;
  installs: string;
  ccache: string;
  logs: string;
  locks: string;
}

export function cacheLayout(root: string): CacheLayout {
  return {
    root,
    git: path.join(root, 'git'),
    builds: path.join(root, 'builds'),
    installs: path.join(root, 'installs'),
    ccache: path.join(root, 'ccache'),
    logs: path.join(root, 'logs'),
    locks: path.join(root, 'locks'),
  };
}

/** Paths of one build slot (one key, or one key installed into a user-chosen prefix). */
export interface SlotPaths {
  slot: string;
  work: string;
  src: string;
  build: string;
  stage: string;
  statsLog: string;
  install: string;
  lock: string;
  log: string;
}

export function slotPaths(layout: CacheLayout, key: string, prefix?: string): SlotPaths {
  const slot = prefix ? `${key}-p${sha256(path.resolve(prefix)).slice(0, 8)}` : key;
  const work = path.join(layout.builds, slot);
  return {
    slot,
    work,
    src: path.join(work, 'src'),
    build: path.join(work, 'build'),
    stage: path.join(work, 'stage'),
    statsLog: path.join(work, 'ccache-stats.log'),
    install: prefix ? path.resolve(prefix) : path.join(layout.installs, slot),
    lock: path.join(layout.locks, `${slot}.lock`),
    log: path.join(layout.logs, `${slot}.log`),
  };
}

export interface KeyInput {
  sha: string;
  /** sha256 of each patch file, in the order applied. */
  patchHashes: readonly string[];
  /** Options the user added; the pinned ones are covered by the recipe version. */
  extraOptions: readonly string[];
  compiler: Compiler;
  platform: Platform;
  recipe: number;
}

/**
 * The cache key of an install: "<sha12>-<hash16>", the hash over everything that decides what the
 * build produces. The tree (and so the build system and the option list derived from it) follows from
 * the sha and the patches; the prefix is not part of the key (installs into a chosen prefix use their
 * own slot).
 */
export function buildKey(input: KeyInput): string {
  const identity = JSON.stringify({
    recipe: input.recipe,
    sha: input.sha,
    patches: input.patchHashes,
    options: input.extraOptions,
    compiler: {
      command: input.compiler.command,
      version: input.compiler.version,
      target: input.compiler.target,
    },
    platform: input.platform,
  });
  return `${input.sha.slice(0, 12)}-${sha256(identity).slice(0, 16)}`;
}

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The directories of an install whose content the marker's hash covers: the programs and libraries. */
export const HASHED_DIRS = ['bin', 'lib'] as const;

/**
 * The content hash of an install: sha256 over every entry under bin/ and lib/ in name order, each as
 * its relative path, type, size and the sha256 of its bytes (symlinks: their target). Recorded in the
 * marker at build time and checked before every reuse, so that an install changed after it was built
 * (by another job writing into the shared cache, or by hand) is never benchmarked as that commit.
 */
export async function installContentHash(installDir: string): Promise<string> {
  const outer = createHash('sha256');
  const walk = async (rel: string): Promise<void> => {
    const abs = path.join(installDir, rel);
    let entries: Dirent[];
    try {
      entries = await readdir(abs, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      outer.update(`missing ${rel}\n`);
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const child = path.join(rel, entry.name);
      if (entry.isSymbolicLink())
        outer.update(`link ${child} -> ${await readlink(path.join(installDir, child))}\n`);
      else if (entry.isDirectory()) {
        outer.update(`dir ${child}\n`);
        await walk(child);
      } else if (entry.isFile()) {
        const bytes = await readFile(path.join(installDir, child));
        outer.update(`file ${child} ${bytes.length} ${sha256(bytes)}\n`);
      } else outer.update(`other ${child}\n`);
    }
  };
  for (const dir of HASHED_DIRS) await walk(dir);
  return outer.digest('hex');
}

/** The marker's record plus the content hash it was written with. */
interface Marker {
  contentHash?: string;
}

/**
 * The build record in a finished install's marker, or undefined when the install is absent,
 * unfinished, or its content no longer matches the hash recorded at build time (then the caller
 * rebuilds; `onMismatch` says why).
 */
export async function readCompleted<T>(
  installDir: string,
  onMismatch?: (message: string) => void,
): Promise<T | undefined> {
  let record: T & Marker;
  try {
    record = JSON.parse(await readFile(path.join(installDir, COMPLETE_MARKER), 'utf8')) as T & Marker;
  } catch {
    return undefined;
  }
  if (typeof record !== 'object' || record === null) return undefined;
  const actual = await installContentHash(installDir).catch(() => 'unreadable');
  if (record.contentHash !== actual) {
    onMismatch?.(
      record.contentHash === undefined
        ? `the cached install ${installDir} has no content hash (built by an older pgperf); rebuilding it`
        : `the cached install ${installDir} does not match the content hash recorded when it was built ` +
            `(its bin/ or lib/ changed since); rebuilding it. Something else writes into the build cache: ` +
            'give each runner its own cache directory, owned by the user that runs pgperf',
    );
    return undefined;
  }
  return record;
}

/**
 * Writes the completion marker: the last step of a build, after the install was verified in place. The
 * marker holds the build record and the install's content hash.
 */
export async function markComplete(installDir: string, record: object): Promise<void> {
  const marker = path.join(installDir, COMPLETE_MARKER);
  const contentHash = await installContentHash(installDir);
  await writeAtomically(marker, `${JSON.stringify({ ...record, contentHash }, null, 2)}\n`, { mode: 0o644 });
}

/**
 * Moves a staged install tree to its final path with one rename. A --prefix on another file system gets
 * a copy next to it first, renamed into place the same way.
 */
export async function moveIntoPlace(staged: string, installDir: string): Promise<void> {
  await rm(installDir, { recursive: true, force: true });
  await mkdirPublic(path.dirname(installDir));
  try {
    await rename(staged, installDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    const sibling = `${installDir}.tmp-${process.pid}`;
    try {
      await cp(staged, sibling, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
      await rename(sibling, installDir);
    } finally {
      await rm(sibling, { recursive: true, force: true });
    }
  }
}

/** Refuses to build when the cache directory's file system is short of space. */
export async function checkFreeSpace(dir: string, needBytes: number): Promise<void> {
  const stats = await statfs(dir);
  const free = Number(stats.bavail) * Number(stats.bsize);
  if (free < needBytes) {
    const gib = (n: number) => `${(n / 1024 ** 3).toFixed(1)} GiB`;
    throw new UserError(
      `not enough disk space for a build in ${dir}: ${gib(free)} free, a build needs about ${gib(needBytes)}. ` +
        'Free some space (old installs are under installs/ and can be deleted) or pass --cache-dir DIR on a larger disk.',
    );
  }
}
