/**
 * Same compiled code? Two installs run the same code when their programs (bin/), shared libraries and
 * server modules (lib/) and the data files initdb and the server read (share/: the catalog's .bki, SQL
 * scripts, time zones) are byte for byte the same once each install's own paths are masked: builds of one
 * tree under two cache keys differ only in the install prefix compiled into them (pg_config's paths, the
 * rpath) and in the GNU build id, a hash of the whole file. A patch that touches only docs or tests builds
 * the same code; one that moves a line in a .c file does not (`__LINE__` in elog calls), and the server's
 * symbol table says which functions' code changed. A function whose bytes differ but whose size did not is
 * disassembled in both builds (disassembly.ts): the same instructions once the addresses are taken out is a
 * function that only moved (a function before it grew), the same but for constants is one changed only in
 * its immediates (`__LINE__`), anything else changed.
 */
import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { mkdtemp, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CompiledCodeComparison } from '../../core/results/result-types.js';
import { nodeProcessRunner, type ProcessRunner } from '../../machine/os/process.js';
import { readRegularFileBytes } from '../../machine/os/regular-file.js';
import { addressOf, fingerprints, isX86_64, type Fingerprint, type FunctionRange } from './disassembly.js';
import { elfFunctions, isElf64, withoutBuildId, type ElfFunction } from './elf.js';

/** At most this many file and function names are kept (the counts say how many in all). */
const KEPT_NAMES = 50;
/** Every changed function's name is kept (`all`) up to this many. */
const ALL_NAMES = 5000;
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
  // A regular file only, within a deadline: a FIFO in an install would keep the comparison waiting for ever.
  const bytes = masked(await readRegularFileBytes(file), own);
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
  options: FunctionComparisonOptions = {},
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
    if (rel === SERVER_BINARY) serverFunctions = await changedFunctions(bb, hb, options);
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

/** How functions of the same size whose bytes differ are told apart (see changedFunctions). */
export interface FunctionComparisonOptions {
  /** Runs objdump (default: pgperf's process runner). */
  runner?: ProcessRunner;
  /** The objdump to run (default `objdump` on the PATH). */
  objdump?: string;
}

type ServerFunctions = NonNullable<CompiledCodeComparison['serverFunctions']>;

/**
 * The functions of two builds of a binary whose code differs: added, removed or resized first (their
 * effect is certain), then those of the same size whose instructions changed, then those changed only in
 * immediates (a `__LINE__`); a function of the same size whose instructions are the same once call, jump
 * and RIP-relative addresses are taken out only moved (a function before it changed size) and is counted
 * apart, not named. Without objdump (or off x86-64) same-size functions are compared byte for byte, and
 * `note` says why.
 */
export async function changedFunctions(
  base: Buffer,
  head: Buffer,
  options: FunctionComparisonOptions = {},
): Promise<ServerFunctions> {
  const before = new Map(elfFunctions(base).map((f) => [f.name, f]));
  const after = elfFunctions(head);
  const resized: string[] = [];
  const sameSize: Array<{ base: ElfFunction; head: ElfFunction }> = [];
  for (const f of after) {
    const old = before.get(f.name);
    if (!old || old.size !== f.size) resized.push(f.name);
    else if (!old.code.equals(f.code)) sameSize.push({ base: old, head: f });
    before.delete(f.name);
  }
  const certain = [...resized, ...before.keys()];
  const summary = (changed: string[], rest: Partial<ServerFunctions>): ServerFunctions => ({
    changed: changed.slice(0, KEPT_NAMES),
    changedCount: changed.length,
    total: after.length,
    ...rest,
    ...(changed.length <= ALL_NAMES ? { all: changed } : {}),
  });
  const byBytes = (note: string) =>
    summary([...certain, ...sameSize.map((p) => p.head.name)], { method: 'bytes', note });
  if (sameSize.length === 0) {
    return summary(certain, {
      immediatesOnly: [],
      immediatesOnlyCount: 0,
      movedOnlyCount: 0,
      method: 'disassembly',
    });
  }
  if (!isX86_64(base) || !isX86_64(head)) {
    return byBytes('the disassembly is read for x86-64 binaries only');
  }
  const ranges = (bytes: Buffer, side: 'base' | 'head'): FunctionRange[] | undefined => {
    const out: FunctionRange[] = [];
    for (const pair of sameSize) {
      const f = pair[side];
      const start =
        f.code.buffer === bytes.buffer ? addressOf(bytes, f.code.byteOffset - bytes.byteOffset) : undefined;
      if (start === undefined) return undefined;
      out.push({ name: f.name, start, end: start + f.size });
    }
    return out;
  };
  const baseRanges = ranges(base, 'base');
  const headRanges = ranges(head, 'head');
  if (!baseRanges || !headRanges)
    return byBytes("a function's address could not be found in the program headers");
  let basePrints: Map<string, Fingerprint>;
  let headPrints: Map<string, Fingerprint>;
  try {
    [basePrints, headPrints] = await disassembled(
      { bytes: base, ranges: baseRanges },
      { bytes: head, ranges: headRanges },
      options,
    );
  } catch (e) {
    return byBytes(e instanceof Error ? e.message : String(e));
  }
  const rewritten: string[] = [];
  const immediatesOnly: string[] = [];
  let movedOnly = 0;
  for (const { head: f } of sameSize) {
    const b = basePrints.get(f.name);
    const h = headPrints.get(f.name);
    if (b && h && b.exact === h.exact) movedOnly++;
    else if (b && h && b.masked === h.masked) immediatesOnly.push(f.name);
    else rewritten.push(f.name);
  }
  return summary([...certain, ...rewritten, ...immediatesOnly], {
    immediatesOnly: immediatesOnly.slice(0, KEPT_NAMES),
    immediatesOnlyCount: immediatesOnly.length,
    movedOnlyCount: movedOnly,
    method: 'disassembly',
  });
}

/** The fingerprints of both builds' functions, from files objdump reads in a temporary directory. */
async function disassembled(
  base: { bytes: Buffer; ranges: FunctionRange[] },
  head: { bytes: Buffer; ranges: FunctionRange[] },
  options: FunctionComparisonOptions,
): Promise<[Map<string, Fingerprint>, Map<string, Fingerprint>]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgperf-disasm-'));
  try {
    // Half the CPUs each: both builds are disassembled at once.
    const parallel = Math.max(1, Math.floor(os.availableParallelism() / 2));
    const one = async (build: typeof base, name: string) => {
      const file = path.join(dir, name);
      await writeFile(file, build.bytes);
      return fingerprints(file, build.bytes, build.ranges, {
        runner: options.runner ?? nodeProcessRunner,
        parallel,
        ...(options.objdump ? { objdump: options.objdump } : {}),
      });
    };
    // Both settled before the directory goes, so no objdump still reads it.
    const [b, h] = await Promise.allSettled([one(base, 'base'), one(head, 'head')]);
    if (b.status === 'rejected') throw b.reason;
    if (h.status === 'rejected') throw h.reason;
    return [b.value, h.value];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
