/**
 * Same compiled code? Two installs behave the same when every file their server and tools can load or read
 * (install-files.ts: programs, shared libraries, server modules, JIT bitcode, extension scripts, the sample
 * configuration, the data files initdb and the server read, and any file pgperf does not know; symbolic
 * links followed to what they point to) is byte for byte the same once each install's own paths are
 * masked (links: by what they point to): builds of one tree under two cache keys differ only in the install prefix compiled into them
 * (pg_config's paths, the rpath) and in the GNU build id, a hash of the whole file. A patch that touches
 * only docs or tests builds the same code; one that moves a line in a .c file does not (`__LINE__` in elog
 * calls), and the server's symbol table says which functions' code changed. A function whose bytes differ
 * but whose size did not is disassembled in both builds (disassembly.ts): the same instructions once the
 * addresses are taken out is a function that only moved (a function before it grew), the same but for
 * constants is one changed only in its immediates (`__LINE__`), anything else changed. objdump parses the
 * head's binary, the patch's file: as root it runs as the run-as user (install-runner.ts). What cannot be
 * vouched for (a link out of the install, a FIFO) differs; an install whose files pgperf cannot all see is
 * not compared (`unknown`): either way the head is measured.
 */
import { chmod, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CompiledCodeComparison } from '../../core/results/result-types.js';
import { makeTempDir } from '../../machine/os/cleanup.js';
import { readRegularFileBytes } from '../../machine/os/regular-file.js';
import { installRunner, type InstallDeps } from '../cluster/install-runner.js';
import { resolveRunAs } from '../cluster/run-as.js';
import { addressOf, fingerprints, isX86_64, type Fingerprint, type FunctionRange } from './disassembly.js';
import { elfFunctions, isElf64, withoutBuildId, type ElfFunction } from './elf.js';
import { installFiles, type InstallFile } from './install-files.js';

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

/** A file's bytes with its install's own paths masked and, in ELF files, the build id taken out. */
async function normalised(file: string, own: string[]): Promise<Buffer> {
  // A regular file only, within a deadline: a FIFO in an install would keep the comparison waiting for ever.
  const bytes = masked(await readRegularFileBytes(file), own);
  return isElf64(bytes) ? withoutBuildId(bytes) : bytes;
}

/**
 * Whether one file is the same in both installs: regular files by their normalised bytes (returned, for
 * the server binary), links by their targets' names; a foreign file (install-files.ts) never, and why.
 */
async function sameFile(
  b: InstallFile,
  h: InstallFile,
  own: { base: string[]; head: string[] },
): Promise<{ same: boolean; why?: string; bytes?: [Buffer, Buffer] }> {
  if (h.kind === 'foreign') return { same: false, why: h.why };
  if (b.kind === 'foreign') return { same: false, why: b.why };
  if (b.kind === 'link' || h.kind === 'link') {
    return { same: b.kind === 'link' && h.kind === 'link' && b.to === h.to };
  }
  const [bb, hb] = await Promise.all([normalised(b.file, own.base), normalised(h.file, own.head)]);
  return { same: bb.equals(hb), bytes: [bb, hb] };
}

/**
 * Compares head's install with base's (see the module comment). Installs whose prefixes differ in length
 * cannot be masked alike, and an install whose files pgperf cannot all see (install-files.ts) cannot be
 * vouched for: then `unknown` says so and the arms are measured as usual.
 */
export async function compareCompiledCode(
  base: InstallArm,
  head: InstallArm,
  options: FunctionComparisonOptions,
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
  const [baseInstall, headInstall] = await Promise.all([
    installFiles(base.binDir),
    installFiles(head.binDir),
  ]);
  const baseFiles = baseInstall.files;
  const headFiles = headInstall.files;
  if (baseFiles.get(SERVER_BINARY)?.kind !== 'file' || headFiles.get(SERVER_BINARY)?.kind !== 'file') {
    return {
      ...empty,
      unknown: `no ${SERVER_BINARY} in ${baseFiles.get(SERVER_BINARY)?.kind === 'file' ? headDir : baseDir}`,
    };
  }
  const unknown = baseInstall.unknown ?? headInstall.unknown;
  if (unknown) return { ...empty, unknown };
  const names = [...new Set([...baseFiles.keys(), ...headFiles.keys()])].sort();
  const differing: string[] = [];
  let serverFunctions: CompiledCodeComparison['serverFunctions'];
  for (const rel of names) {
    const b = baseFiles.get(rel);
    const h = headFiles.get(rel);
    if (!b || !h) {
      const only = (b ?? h)!;
      differing.push(only.kind === 'foreign' ? `${rel} (${only.why})` : rel);
      continue;
    }
    const file = await sameFile(b, h, { base: baseOwn, head: headOwn });
    if (file.same) continue;
    differing.push(file.why ? `${rel} (${file.why})` : rel);
    if (rel === SERVER_BINARY && file.bytes) serverFunctions = await changedFunctions(...file.bytes, options);
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
  /**
   * pgperf's runner and the run-as user: objdump parses the head's binary, code under test that could be
   * crafted against binutils' parsers, so as root it runs as that user (install-runner.ts), never as root.
   */
  install: InstallDeps;
  /** The objdump to run (default `objdump` on the PATH). */
  objdump?: string;
  /** Where the copies objdump reads are written (default the OS temp dir); the run-as user must reach it. */
  tmpDir?: string | undefined;
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
  options: FunctionComparisonOptions,
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

/**
 * The fingerprints of both builds' functions, from copies objdump reads in a temporary directory: one of
 * the run-as user's (makeTempDir's owner), the copies readable (0444) whatever the umask, since objdump runs
 * as that user when pgperf is root.
 */
async function disassembled(
  base: { bytes: Buffer; ranges: FunctionRange[] },
  head: { bytes: Buffer; ranges: FunctionRange[] },
  options: FunctionComparisonOptions,
): Promise<[Map<string, Fingerprint>, Map<string, Fingerprint>]> {
  const { runAs } = options.install;
  const temp = await makeTempDir('pgperf-disasm-', {
    ...(options.tmpDir !== undefined ? { parent: options.tmpDir } : {}),
    ...(runAs ? { owner: runAs } : {}),
  });
  const runner = installRunner(options.install);
  try {
    // Half the CPUs each: both builds are disassembled at once.
    const parallel = Math.max(1, Math.floor(os.availableParallelism() / 2));
    const one = async (build: typeof base, name: string) => {
      const file = path.join(temp.dir, name);
      await writeFile(file, build.bytes);
      await chmod(file, 0o444);
      return fingerprints(file, build.bytes, build.ranges, {
        runner,
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
    await temp.remove();
  }
}

/**
 * compareCompiledCode as the pipeline runs it (objdump as the run-as user, resolved once), for a flow that
 * compares many pairs of installs (attribution, backfill); `labels` name the older and the newer install.
 */
export async function compiledCodeComparer(
  options: { runAs?: string | undefined; tmpDir?: string | undefined },
  deps: Parameters<typeof resolveRunAs>[1],
  labels: readonly [older: string, newer: string],
): Promise<(older: { binDir: string }, newer: { binDir: string }) => Promise<CompiledCodeComparison>> {
  const runAs = await resolveRunAs(options.runAs, deps);
  return (older, newer) =>
    compareCompiledCode(
      { label: labels[0], binDir: older.binDir },
      { label: labels[1], binDir: newer.binDir },
      { install: { runner: deps.runner, runAs }, tmpDir: options.tmpDir },
    );
}
