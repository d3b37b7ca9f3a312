/**
 * Relocation-insensitive function comparison, on real programs gcc -O2 compiles twice: a function early in
 * the file that grows moves every function after it (their calls, jumps and RIP-relative operands change
 * bytes), yet only it changed; a blank line that moves a `__LINE__` changes one function only in an
 * immediate; one source compiled twice changes nothing. Without objdump the bytes are compared and the
 * record says why. Each source is compiled as `m.c` in a directory of its own, so `__FILE__` is the same.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeCodeDifference } from '../../src/core/compare/analysis/same-code.js';
import type { CompiledCodeComparison } from '../../src/core/results/result-types.js';
import { changedFunctions, type FunctionComparisonOptions } from '../../src/postgres/builds/compiled-code.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { normalise } from '../../src/postgres/builds/disassembly.js';
import { elfFunctions } from '../../src/postgres/builds/elf.js';
import { installDeps, testRunAs } from '../helpers/run-as.js';

const missing = ['gcc', 'objdump'].filter((tool) => spawnSync(tool, ['--version']).error !== undefined);
const onX86 = process.arch === 'x64';
const skip = missing.length > 0 || !onX86;
/** The reason a skipped test's name gives. */
const why = !skip
  ? ''
  : missing.length > 0
    ? ` (skipped: ${missing.join(' and ')} not on the PATH)`
    : ' (skipped: not on x86-64)';

/**
 * A small program in the manner of the server: `early` first (it grows with `grow`), then functions that
 * call each other and libc, read a global and string literals, and switch through a jump table; `checked`
 * reports its line through a macro like elog's (`blank` adds a line above it, moving `__LINE__`; `grow`
 * adds a loop to an existing line, so no line moves).
 */
const SOURCE = (o: { grow?: boolean; blank?: boolean } = {}) => `#include <stdio.h>
#include <stdlib.h>
#define NOINLINE __attribute__((noinline))
#define REPORT(msg) report_at(__LINE__, msg)
static int counter;
const char *const names[] = {"zero", "one", "two"};
NOINLINE int early(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += i * 3;${o.grow ? ' for (int i = 0; i < n; i++) s ^= (s << 3) + i;' : ''}
  return s;
}
NOINLINE void report_at(int line, const char *msg) { fprintf(stderr, "line %d: %s\\n", line, msg); }
NOINLINE int pick(int x) {
  switch (x) {
  case 0: return counter + 3;
  case 1: return 7 * counter;
  case 2: return counter ^ 99;
  case 3: return counter - 11;
  case 4: puts("four"); return 42;
  case 5: return early(x) + 5;
  default: return x;
  }
}
NOINLINE int later(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += pick(i) * 3;
  counter += s;
  printf("later %s %d\\n", names[n % 3], s);
  return s;
}
${o.blank ? '\n' : ''}NOINLINE int checked(int n) {
  if (n > 1000) REPORT("too many");
  return later(n) + early(n);
}
int main(int argc, char **argv) { (void)argv; return checked(argc) & 1; }
`;

let tmp: string;
let built = 0;
/** objdump runs as the run-as user when the tests are root, as the pipeline runs it. */
let options: FunctionComparisonOptions;

/** The program's bytes, built from `source` with gcc -O2. */
async function compile(source: string): Promise<Buffer> {
  const dir = path.join(tmp, String(built++));
  await mkdir(dir);
  await writeFile(path.join(dir, 'm.c'), source);
  execFileSync('gcc', ['-O2', '-o', 'm', 'm.c'], { cwd: dir });
  return readFile(path.join(dir, 'm'));
}

/** The names of functions whose bytes differ between the builds (the old, byte-for-byte answer). */
function differingBytes(base: Buffer, head: Buffer): string[] {
  const before = new Map(elfFunctions(base).map((f) => [f.name, f.code]));
  return elfFunctions(head)
    .filter((f) => !before.get(f.name)?.equals(f.code))
    .map((f) => f.name);
}

const withFunctions = (
  serverFunctions: CompiledCodeComparison['serverFunctions'],
): CompiledCodeComparison => ({
  head: 'head',
  identical: false,
  files: 3,
  differingFiles: ['bin/postgres'],
  differingCount: 1,
  serverFunctions,
});

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-disasm-test-'));
  await chmod(tmp, 0o755); // the run-as user runs the recording objdump below from here
  options = { install: await installDeps() };
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('relocation-insensitive function comparison', () => {
  it.skipIf(skip)(`a function that grows is the one changed; those after it only moved${why}`, async () => {
    const base = await compile(SOURCE());
    const head = await compile(SOURCE({ grow: true }));
    // Byte for byte, every function after `early` differs: the old answer this replaces.
    expect(differingBytes(base, head)).toEqual(expect.arrayContaining(['early', 'pick', 'later', 'checked']));

    const f = await changedFunctions(base, head, options);
    expect(f).toMatchObject({
      method: 'disassembly',
      changed: ['early'],
      changedCount: 1,
      immediatesOnly: [],
      immediatesOnlyCount: 0,
      all: ['early'],
    });
    expect(f.note).toBeUndefined();
    // pick (a jump table, a string), later (calls, a global, an array), checked and report_at moved at least.
    expect(f.movedOnlyCount).toBeGreaterThanOrEqual(4);
    expect(f.total).toBe(elfFunctions(head).length);
    expect(describeCodeDifference(withFunctions(f))).toBe(
      `1 of 3 files differ (bin/postgres); in bin/postgres 1 function changed: early (${f.movedOnlyCount} others only moved)`,
    );
  });

  it.skipIf(skip)(
    `a line added above a __LINE__: that function changed only in an immediate${why}`,
    async () => {
      const base = await compile(SOURCE());
      const head = await compile(SOURCE({ blank: true }));
      expect(differingBytes(base, head)).toEqual(['checked']);

      const f = await changedFunctions(base, head, options);
      expect(f).toMatchObject({
        method: 'disassembly',
        changed: ['checked'],
        changedCount: 1,
        immediatesOnly: ['checked'],
        immediatesOnlyCount: 1,
        movedOnlyCount: 0,
        all: ['checked'],
      });
      expect(describeCodeDifference(withFunctions(f))).toBe(
        '1 of 3 files differ (bin/postgres); in bin/postgres 1 function changed only in immediates (e.g. __LINE__): checked',
      );
    },
  );

  it.skipIf(skip)(`one source compiled twice: nothing changed${why}`, async () => {
    const base = await compile(SOURCE({ grow: true }));
    const head = await compile(SOURCE({ grow: true }));
    const f = await changedFunctions(base, head, options);
    expect(f).toMatchObject({ changed: [], changedCount: 0, movedOnlyCount: 0, immediatesOnlyCount: 0 });
    expect(f.total).toBeGreaterThanOrEqual(5);
  });

  it.skipIf(skip)(`without objdump the bytes are compared, and the record says why${why}`, async () => {
    const base = await compile(SOURCE());
    const head = await compile(SOURCE({ grow: true }));
    const f = await changedFunctions(base, head, {
      ...options,
      objdump: path.join(tmp, 'no-such-objdump'),
    });
    expect(f.method).toBe('bytes');
    expect(f.note).toMatch(/^could not start .*no-such-objdump/);
    expect(f.changed[0]).toBe('early');
    expect(f.changed).toEqual(expect.arrayContaining(['pick', 'later', 'checked']));
    expect(f.movedOnlyCount).toBeUndefined();
    expect(describeCodeDifference(withFunctions(f))).toMatch(
      /in bin\/postgres the code of \d+ of \d+ functions \(compared byte for byte, moved ones included: could not start .*no-such-objdump.*\): early, /,
    );
  });
});

const isRoot = process.getuid?.() === 0;

describe.skipIf(!isRoot || skip)(`as root, objdump reads the head's binary as the run-as user${why}`, () => {
  /** An objdump that records who ran it and whether it could read its file, then runs the real one. */
  async function recordingObjdump(): Promise<{ objdump: string; records: () => Promise<string[]> }> {
    const dir = path.join(tmp, `recorded-${built++}`);
    await mkdir(dir, { mode: 0o1777 });
    await chmod(dir, 0o1777); // the run-as user writes its records here
    const objdump = path.join(dir, 'objdump');
    const real = execFileSync('sh', ['-c', 'command -v objdump'], { encoding: 'utf8' }).trim();
    await writeFile(
      objdump,
      `#!/bin/sh\nfor f; do :; done\n{ echo "uid $(id -u) $(test -r "$f" && echo readable)"; } > "${dir}/$$.txt"\nexec ${real} "$@"\n`,
      { mode: 0o755 },
    );
    const records = async () => {
      const files = (await readdir(dir)).filter((f) => f.endsWith('.txt'));
      return Promise.all(files.map(async (f) => (await readFile(path.join(dir, f), 'utf8')).trim()));
    };
    return { objdump, records };
  }

  it("every objdump run is the run-as user's, and reads the copies in a directory of that user", async () => {
    const runAs = (await testRunAs())!;
    const base = await compile(SOURCE());
    const head = await compile(SOURCE({ grow: true }));
    const { objdump, records } = await recordingObjdump();
    const f = await changedFunctions(base, head, { ...options, objdump });
    expect(f).toMatchObject({ method: 'disassembly', changed: ['early'] });
    expect(f.note).toBeUndefined();
    const seen = await records();
    expect(seen.length).toBeGreaterThanOrEqual(2); // base and head
    expect(seen.filter((r) => r !== `uid ${runAs.uid} readable`)).toEqual([]);
  });

  it('without a run-as user objdump is never run as root: the bytes are compared and the record says why', async () => {
    const base = await compile(SOURCE());
    const head = await compile(SOURCE({ grow: true }));
    const { objdump, records } = await recordingObjdump();
    const f = await changedFunctions(base, head, {
      install: { runner: nodeProcessRunner, runAs: undefined },
      objdump,
    });
    expect(f.method).toBe('bytes');
    expect(f.note).toBe(
      `${objdump} would run as root: an install's programs run as the run-as user when pgperf is root (a bug: the caller did not resolve it)`,
    );
    expect(await records()).toEqual([]);
  });
});

describe('normalising one function', () => {
  // Lines as objdump -d --no-show-raw-insn -w prints them (binutils 2.40), for a function at 0x1200-0x12a0.
  const fn = { start: 0x1200, end: 0x12a0 };
  const text = (base: number) =>
    [
      `ja     ${(0x1283 + base).toString(16)} <sw+0x83>`,
      `call   ${(0x11d0 + base).toString(16)} <fail>`,
      `lea    0x${(0xe15 - base).toString(16)}(%rip),%rdx        # 2024 <_IO_stdin_used+0x24>`,
      `mov    0x${(0x2e26 - base).toString(16)}(%rip),%eax        # 406c <counter>`,
      'mov    $0x1a3,%esi',
      'mov    0x18(%rax),%rdi',
    ].join('\n');

  it('keeps a jump inside the function as its offset, another function by name, data by symbol', () => {
    expect(normalise(text(0), fn).exact).toBe(
      [
        'ja     <.+0x83>',
        'call   <fail>',
        'lea    (%rip),%rdx        # <_IO_stdin_used+0x24>',
        'mov    (%rip),%eax        # <counter>',
        'mov    $0x1a3,%esi',
        'mov    0x18(%rax),%rdi',
      ].join('\n'),
    );
  });

  it('a moved copy (the same instructions 0x40 further on, its operands 0x40 closer) is the same text', () => {
    expect(normalise(text(0x40), { start: 0x1240, end: 0x12e0 })).toEqual(normalise(text(0), fn));
  });

  it('an anonymous string literal is read as the string, so one added before it does not count', () => {
    const at = (a: number) => (a === 0x2024 ? 'too many' : a === 0x2034 ? 'too many' : undefined);
    const a = normalise('lea    0xe15(%rip),%rdi        # 2024 <_IO_stdin_used+0x24>', fn, at);
    const b = normalise('lea    0xe25(%rip),%rdi        # 2034 <_IO_stdin_used+0x34>', fn, at);
    expect(a.exact).toBe('lea    (%rip),%rdi        # "too many"');
    expect(b).toEqual(a);
  });

  it('masks immediates and displacements only in the masked text', () => {
    const a = normalise('mov    $0x1a3,%esi\nmov    0x18(%rax),%rdi', fn);
    const b = normalise('mov    $0x1a4,%esi\nmov    0x20(%rax),%rdi', fn);
    expect(a.exact).not.toBe(b.exact);
    expect(a.masked).toBe(b.masked);
    expect(a.masked).toBe('mov    $?,%esi\nmov    ?(%rax),%rdi');
  });
});
