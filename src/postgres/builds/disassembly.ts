/**
 * Relocation-insensitive fingerprints of x86-64 functions, from `objdump -d`: what a function's code says
 * once the addresses that only say where things were placed are taken out. When one function of a binary
 * grows, every function after it moves, and with it every call displacement, every jump to another
 * function and every RIP-relative operand: their bytes differ though their code did not change. Here each
 * instruction is written with
 *   - a branch or call target inside the function as its offset from the function's start (`<.+0x1c>`),
 *   - a target elsewhere as the symbol objdump names (`<palloc>`, `<ExecInitNode.cold+0x12>`),
 *   - a RIP-relative operand as the symbol its comment names (`(%rip) # <MyProc>`), or, for an anonymous
 *     string of the read-only data (the merged string literals, whose offsets from the nearest symbol move
 *     when a string is added before them), as the string itself,
 *   - any other address objdump prints masked.
 * Two fingerprints are kept: `exact` (that text) and `masked` (also every immediate `$0x...` and every
 * displacement constant masked), so a function whose only change is a constant, such as the `__LINE__` an
 * elog passes after a comment moved it, can be told from one whose instructions changed.
 *
 * The binary is disassembled in address ranges that cover the functions asked for (at most CHUNK_BYTES of
 * code each, gaps of more than MAX_GAP_BYTES left out), one objdump per range, `parallel` at once: a range's
 * output (~9 bytes of text per byte of code) is parsed as a whole, never the whole binary's (~50 MB for
 * PostgreSQL 18's server). Cost: linear in the code disassembled; both builds of PostgreSQL 18's server
 * (18,795 functions, 11,906 of them moved) took 6 to 10 s on 2 cores shared with a running test suite,
 * ~250 MB resident at most (bench/compiled-code-compare.ts).
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import { describeExit, tail, type ProcessRunner } from '../../machine/os/process.js';

/** ELF e_machine of x86-64 (System V gABI); the normalisation below reads AT&T x86-64 syntax only. */
const EM_X86_64 = 62;
const PT_LOAD = 1;
const PF_X = 1;
const PF_W = 2;
/**
 * At most this much code per objdump run (its output, ~9 bytes of text per byte of code, is held as one
 * string while parsed): PostgreSQL 18's 5.6 MB of .text in ~22 runs per build, each started in ~50 ms.
 */
const CHUNK_BYTES = 256 << 10;
/** A gap of more than this between two functions asked for starts a new run rather than disassembling it. */
const MAX_GAP_BYTES = 64 << 10;
/** The longest string literal read as one (longer: not taken for a string; its symbol+offset is kept). */
const MAX_STRING_BYTES = 4096;
/** One objdump run on a 1 MiB range takes about a second; this is far beyond any sane one. */
const OBJDUMP_TIMEOUT_MS = 300_000;

/** A function asked for: its name and its addresses [start, end). */
export interface FunctionRange {
  name: string;
  start: number;
  end: number;
}

/**
 * A function's code without its placement (`exact`), and also without its constants (`masked`): the texts
 * from normalise, their SHA-1 digests from fingerprints.
 */
export interface Fingerprint {
  exact: string;
  masked: string;
}

interface Segment {
  offset: number;
  vaddr: number;
  filesz: number;
  flags: number;
}

/** The PT_LOAD program headers of a little-endian ELF64 file (e_phoff at 0x20, Elf64_Phdr 56 bytes). */
function loadSegments(bytes: Buffer): Segment[] {
  if (bytes.length < 64) return [];
  const phoff = Number(bytes.readBigUInt64LE(0x20));
  const phentsize = bytes.readUInt16LE(0x36);
  const phnum = bytes.readUInt16LE(0x38);
  if (phentsize < 56 || phoff + phnum * phentsize > bytes.length) return [];
  const out: Segment[] = [];
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (bytes.readUInt32LE(at) !== PT_LOAD) continue;
    out.push({
      flags: bytes.readUInt32LE(at + 4),
      offset: Number(bytes.readBigUInt64LE(at + 8)),
      vaddr: Number(bytes.readBigUInt64LE(at + 0x10)),
      filesz: Number(bytes.readBigUInt64LE(at + 0x20)),
    });
  }
  return out;
}

/** True for an x86-64 ELF file (e_machine at 0x12). */
export function isX86_64(bytes: Buffer): boolean {
  return bytes.length >= 64 && bytes.readUInt16LE(0x12) === EM_X86_64;
}

/**
 * The address a file offset is loaded at (its PT_LOAD segment's), undefined outside every segment. For a
 * function of elf.ts's elfFunctions, whose code is a view of the file's bytes, the file offset is
 * `code.byteOffset - bytes.byteOffset`.
 */
export function addressOf(bytes: Buffer, fileOffset: number): number | undefined {
  const s = loadSegments(bytes).find((g) => fileOffset >= g.offset && fileOffset < g.offset + g.filesz);
  return s && fileOffset - s.offset + s.vaddr;
}

/**
 * The NUL-terminated string at `address` when it lies in read-only, non-executable data and looks like a
 * string literal: preceded by a NUL (the start of a merged literal, not a suffix of another), at least one
 * character, no control character but tab and newlines, no 0xfe/0xff (which a jump table's negative
 * offsets are full of). Undefined otherwise.
 */
function stringAt(bytes: Buffer, segments: readonly Segment[], address: number): string | undefined {
  const s = segments.find((g) => address >= g.vaddr && address < g.vaddr + g.filesz);
  if (!s || s.flags & (PF_W | PF_X)) return undefined;
  const start = address - s.vaddr + s.offset;
  if (start === 0 || bytes[start - 1] !== 0) return undefined;
  const limit = Math.min(bytes.length, start + MAX_STRING_BYTES, s.offset + s.filesz);
  for (let i = start; i < limit; i++) {
    const b = bytes[i]!;
    if (b === 0) return i > start ? bytes.toString('latin1', start, i) : undefined;
    if ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) || b === 0x7f || b >= 0xfe) return undefined;
  }
  return undefined;
}

/** `hex <symbol>`: a branch target or, after `#`, the address a RIP-relative operand refers to. */
const SYMBOLISED = /\b([0-9a-f]+) <([^>\n]+)>/g;
const RIP_DISPLACEMENT = /-?0x[0-9a-f]+\(%rip\)/g;
/** A comment's address objdump could not name. */
const BARE_COMMENT_ADDRESS = /# [0-9a-f]+$/gm;
const IMMEDIATE = /\$-?0x[0-9a-f]+/g;
const DISPLACEMENT = /-?0x[0-9a-f]+(?=\()/g;

/**
 * The text of one function's instructions (objdump's, one per line, addresses cut) without its placement.
 * Exported for tests.
 */
export function normalise(
  instructions: string,
  fn: Pick<FunctionRange, 'start' | 'end'>,
  stringAtAddress: (address: number) => string | undefined = () => undefined,
): Fingerprint {
  const exact = instructions
    .replace(SYMBOLISED, (_, hex: string, symbol: string) => {
      const target = parseInt(hex, 16);
      if (target >= fn.start && target < fn.end) return `<.+0x${(target - fn.start).toString(16)}>`;
      const literal = symbol.includes('+0x') ? stringAtAddress(target) : undefined;
      return literal === undefined ? `<${symbol}>` : JSON.stringify(literal);
    })
    .replace(RIP_DISPLACEMENT, '(%rip)')
    .replace(BARE_COMMENT_ADDRESS, '# ?');
  const masked = exact.replace(IMMEDIATE, '$?').replace(DISPLACEMENT, '?');
  return { exact, masked };
}

function digest(text: string): string {
  return createHash('sha1').update(text).digest('base64');
}

/** The addresses objdump is run on: ranges over the functions (sorted by start), see the module comment. */
function chunks(fns: readonly FunctionRange[]): Array<{ start: number; stop: number; fns: FunctionRange[] }> {
  const out: Array<{ start: number; stop: number; fns: FunctionRange[] }> = [];
  for (const f of fns) {
    const last = out[out.length - 1];
    if (last && f.start - last.stop <= MAX_GAP_BYTES && f.end - last.start <= CHUNK_BYTES) {
      last.stop = Math.max(last.stop, f.end);
      last.fns.push(f);
    } else out.push({ start: f.start, stop: f.end, fns: [f] });
  }
  return out;
}

/** Index of the first element of sorted `xs` that is >= x. */
function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * objdump's output for a range as parallel lists: each instruction's address and its text (after the tab
 * that follows the address). A `...` line (a run of zero bytes objdump skipped) joins the instruction
 * before it.
 */
function instructionsOf(output: string): { addresses: number[]; texts: string[] } {
  const addresses: number[] = [];
  const texts: string[] = [];
  for (const line of output.split('\n')) {
    const colon = line.indexOf(':\t');
    if (colon > 0 && colon < 24) {
      const address = parseInt(line.slice(0, colon), 16);
      if (Number.isNaN(address)) continue;
      addresses.push(address);
      texts.push(line.slice(colon + 2));
    } else if (line.trim() === '...' && texts.length > 0) {
      texts[texts.length - 1] += '\n...';
    }
  }
  return { addresses, texts };
}

/** How fingerprints runs objdump. */
export interface DisassemblyOptions {
  runner: ProcessRunner;
  /** The objdump to run (default `objdump`, found on the PATH). */
  objdump?: string;
  /** objdump runs at once (default: the CPUs). */
  parallel?: number;
}

/**
 * The fingerprints of the functions `fns` of the ELF file at `file` (whose bytes are `bytes`). A function
 * objdump printed no instruction for has none. Throws when objdump cannot be run or fails, saying why.
 */
export async function fingerprints(
  file: string,
  bytes: Buffer,
  fns: readonly FunctionRange[],
  options: DisassemblyOptions,
): Promise<Map<string, Fingerprint>> {
  const segments = loadSegments(bytes);
  const strings = (address: number) => stringAt(bytes, segments, address);
  const out = new Map<string, Fingerprint>();
  const todo = chunks([...fns].sort((a, b) => a.start - b.start || a.end - b.end));
  const objdump = options.objdump ?? 'objdump';
  const one = async (chunk: (typeof todo)[number]): Promise<void> => {
    const args = ['-d', '--no-show-raw-insn', '-w', `--start-address=0x${chunk.start.toString(16)}`];
    args.push(`--stop-address=0x${chunk.stop.toString(16)}`, file);
    const ran = await options.runner.run(objdump, args, { timeoutMs: OBJDUMP_TIMEOUT_MS });
    if (ran.spawnError || ran.exitCode !== 0) {
      const how = ran.spawnError ? describeExit(ran) : `${objdump}: ${describeExit(ran)}`;
      throw new Error(`${how}${ran.stderr.trim() ? ` (${tail(ran.stderr, 3)})` : ''}`);
    }
    const { addresses, texts } = instructionsOf(ran.stdout);
    for (const f of chunk.fns) {
      const from = lowerBound(addresses, f.start);
      const to = lowerBound(addresses, f.end);
      if (to <= from) continue;
      const { exact, masked } = normalise(texts.slice(from, to).join('\n'), f, strings);
      out.set(f.name, { exact: digest(exact), masked: digest(masked) });
    }
  };
  await pool(todo, one, options.parallel ?? os.availableParallelism());
  return out;
}

/** Runs `work` on every item, at most `parallel` at once; after a failure none starts, and it is thrown. */
async function pool<T>(
  items: readonly T[],
  work: (item: T) => Promise<void>,
  parallel: number,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (!failure && next < items.length) {
      try {
        await work(items[next++]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, items.length)) }, worker));
  if (failure) throw failure.error;
}
