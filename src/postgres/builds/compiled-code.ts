/**
 * Same compiled code? Two installs run the same code when their programs (bin/), shared libraries and
 * server modules (lib/) and the data files initdb and the server read (share/: the catalog's .bki, SQL
 * scripts, time zones) are byte for byte the same once each install's own paths are masked: builds of one
 * tree under two cache keys differ only in the install prefix compiled into them (pg_config's paths, the
 * rpath) and in the GNU build id, a hash of the whole file. A patch that touches only docs or tests builds
 * the same code; one that moves a line in a .c file does not (`__LINE__` in elog calls), and the server's
 * symbol table says which functions' code changed.
 */
import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import type { CompiledCodeComparison } from '../../core/results/types.js';
import { elfFunctions, isElf64, withoutBuildId } from './elf.js';

/** At most this many file and function names are kept (the counts say how many in all). */
const KEPT_NAMES = 50;
/** The server binary, whose functions are compared when it differs. */
const SERVER_BINARY = 'bin/postgres';
/** A build cache slot name ("<sha12>-<hash16>", cache.ts): build paths under builds/<slot> embed it too. */
const CACHE_SLOT = /^[0-9a-f]{12}-[0-9a-f]{16}(-p[0-9a-f]{8})?$/;

export interface InstallArm {
  label: string;
  /** The install's bin directory; its parent is the install prefix. */
  binDir: string;
}

/**
 * The files of an install that decide what a benchmark runs: every file under bin/, shared objects and
 * server modules under lib/ (not static libraries, pkg-config files or the pgxs build files), and share/
 * without documentation.
 */
async function codeFiles(installDir: string): Promise<Map<string, Dirent>> {
  const files = new Map<string, Dirent>();
  const walk = async (rel: string, keep: (rel: string) => boolean): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(path.join(installDir, rel), { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    for (const entry of entries) {
      const child = path.posix.join(rel, entry.name);
      if (entry.isDirectory()) await walk(child, keep);
      else if (keep(child)) files.set(child, entry);
    }
  };
  await walk('bin', () => true);
  await walk('lib', (rel) => /\.so(\.\d+)*$/.test(rel) && !rel.includes('/pgxs/'));
  await walk('share', (rel) => !/^share\/(doc|man)\//.test(rel));
  return files;
}

/** The strings an install embeds that name itself, longest first. */
function ownPaths(installDir: string): string[] {
  const slot = path.basename(installDir);
  return CACHE_SLOT.test(slot) ? [installDir, slot] : [installDir];
}

/** Every occurrence of each string replaced by as many '#' (so offsets, and the code around them, stay). */
function masked(bytes: Buffer, strings: readonly string[]): Buffer {
  let out = bytes;
  for (const s of strings) {
    const needle = Buffer.from(s);
    let at = out.indexOf(needle);
    if (at < 0) continue;
    if (out === bytes) out = Buffer.from(bytes);
    while (at >= 0) {
      out.fill(0x23, at, at + needle.length);
      at = out.indexOf(needle, at + needle.length);
    }
  }
  return out;
}

async function normalised(installDir: string, rel: string, entry: Dirent, own: string[]): Promise<Buffer> {
  const file = path.join(installDir, rel);
  if (entry.isSymbolicLink()) return masked(Buffer.from(`-> ${await readlink(file)}`), own);
  const bytes = masked(await readFile(file), own);
  return isElf64(bytes) ? withoutBuildId(bytes) : bytes;
}

function digest(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Compares head's install with base's (see the module comment). Installs whose prefixes differ in length
 * cannot be masked alike: then `unknown` says so and the arms are measured as usual.
 */
export async function compareCompiledCode(
  base: InstallArm,
  head: InstallArm,
): Promise<CompiledCodeComparison> {
  const baseDir = path.resolve(path.dirname(base.binDir));
  const headDir = path.resolve(path.dirname(head.binDir));
  const baseOwn = ownPaths(baseDir);
  const headOwn = ownPaths(headDir);
  const empty = { head: head.label, identical: false, files: 0, differingFiles: [], differingCount: 0 };
  if (baseOwn.map((s) => s.length).join() !== headOwn.map((s) => s.length).join()) {
    return {
      ...empty,
      unknown: `the install prefixes ${baseDir} and ${headDir} differ in length, so the paths compiled into them cannot be masked alike`,
    };
  }
  const [baseFiles, headFiles] = await Promise.all([codeFiles(baseDir), codeFiles(headDir)]);
  if (!baseFiles.has(SERVER_BINARY) || !headFiles.has(SERVER_BINARY)) {
    return {
      ...empty,
      unknown: `no ${SERVER_BINARY} in ${baseFiles.has(SERVER_BINARY) ? headDir : baseDir}`,
    };
  }
  const names = [...new Set([...baseFiles.keys(), ...headFiles.keys()])].sort();
  const differing: string[] = [];
  let serverFunctions: CompiledCodeComparison['serverFunctions'];
  for (const rel of names) {
    const b = baseFiles.get(rel);
    const h = headFiles.get(rel);
    if (!b || !h) {
      differing.push(rel);
      continue;
    }
    const [bb, hb] = await Promise.all([
      normalised(baseDir, rel, b, baseOwn),
      normalised(headDir, rel, h, headOwn),
    ]);
    if (bb.length === hb.length && digest(bb) === digest(hb)) continue;
    differing.push(rel);
    if (rel === SERVER_BINARY) serverFunctions = changedFunctions(bb, hb);
  }
  return {
    head: head.label,
    identical: differing.length === 0,
    files: names.length,
    differingFiles: differing.slice(0, KEPT_NAMES),
    differingCount: differing.length,
    ...(serverFunctions ? { serverFunctions } : {}),
  };
}

/**
 * The functions of two builds of a binary whose code differs: added, removed or resized first (their
 * effect is certain), then those of the same size with other bytes (an immediate such as `__LINE__`, or a
 * call whose target moved because a function before it changed size).
 */
export function changedFunctions(
  base: Buffer,
  head: Buffer,
): NonNullable<CompiledCodeComparison['serverFunctions']> {
  const before = new Map(elfFunctions(base).map((f) => [f.name, f]));
  const after = elfFunctions(head);
  const resized: string[] = [];
  const rewritten: string[] = [];
  for (const f of after) {
    const old = before.get(f.name);
    if (!old || old.size !== f.size) resized.push(f.name);
    else if (!old.code.equals(f.code)) rewritten.push(f.name);
    before.delete(f.name);
  }
  const changed = [...resized, ...before.keys(), ...rewritten];
  return { changed: changed.slice(0, KEPT_NAMES), changedCount: changed.length, total: after.length };
}
