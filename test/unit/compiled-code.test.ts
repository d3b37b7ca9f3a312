/**
 * Same compiled code, on real ELF files: tiny "installs" whose bin/postgres gcc compiles from C that embeds
 * the install prefix (as pg_config's paths do) and uses __LINE__ (as elog does), each linked with a GNU
 * build id. Two builds of one source under two prefixes of the same length are the same code; a comment
 * that moves a line changes the function that uses __LINE__; a grown function is named first; prefixes of
 * different lengths cannot be compared.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareCompiledCode } from '../../src/postgres/builds/compiled-code.js';
import { elfFunctions, isElf64, withoutBuildId } from '../../src/postgres/builds/elf.js';
import { readFile } from 'node:fs/promises';

let tmp: string;

const SOURCE = (opts: { comment?: boolean; grow?: boolean } = {}) => `#include <stdio.h>
#include <string.h>
${opts.comment ? '/* a comment that moves every line below it */\n' : ''}static const char *bindir = PREFIX "/bin";
int report(int code) { printf("error at line %d\\n", __LINE__); return code; }
int work(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += i * 3;
${opts.grow ? '  for (int i = 0; i < n; i++) s ^= (s << 3) + i;\n' : ''}  return s;
}
int main(int argc, char **argv) { (void)argv; puts(bindir); return report(work(argc)) & 1; }
`;

/** An install at `<tmp>/<slot>` with bin/postgres built from the source, a data file and a symlink. */
async function install(slot: string, source: string): Promise<string> {
  const dir = path.join(tmp, slot);
  await mkdir(path.join(dir, 'bin'), { recursive: true });
  await mkdir(path.join(dir, 'share'), { recursive: true });
  await mkdir(path.join(dir, 'lib', 'pgxs'), { recursive: true });
  const c = path.join(dir, 'main.c');
  await writeFile(c, source);
  execFileSync('gcc', [
    '-O2',
    '-Wl,--build-id',
    `-DPREFIX="${dir}"`,
    '-o',
    path.join(dir, 'bin', 'postgres'),
    c,
  ]);
  await rm(c);
  await writeFile(path.join(dir, 'share', 'postgres.bki'), `-- installed in ${dir}\ncreate pg_proc\n`);
  // Build files a benchmark never runs: their build paths differ, and they are not compared.
  await writeFile(
    path.join(dir, 'lib', 'pgxs', 'Makefile.global'),
    `abs_top_builddir = /elsewhere/${slot}\n`,
  );
  await symlink('postgres', path.join(dir, 'bin', 'postmaster'));
  return path.join(dir, 'bin');
}

const arm = (label: string, binDir: string) => ({ label, binDir });
const SLOT_A = '0123456789ab-0123456789abcdef';
const SLOT_B = 'ba9876543210-fedcba9876543210';

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-code-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('compiled code of two installs', () => {
  it('two builds of one source under prefixes of one length: the same code, though their bytes and build ids differ', async () => {
    const base = await install(SLOT_A, SOURCE());
    const head = await install(SLOT_B, SOURCE());
    const [b, h] = await Promise.all([
      readFile(path.join(base, 'postgres')),
      readFile(path.join(head, 'postgres')),
    ]);
    expect(b.equals(h)).toBe(false); // the prefix and the build id differ
    expect(isElf64(b)).toBe(true);
    expect(withoutBuildId(b).equals(b)).toBe(false);

    const code = await compareCompiledCode(arm('base', base), arm('head', head));
    expect(code).toMatchObject({ head: 'head', identical: true, differingFiles: [], differingCount: 0 });
    expect(code.files).toBe(3); // bin/postgres, bin/postmaster, share/postgres.bki; not lib/pgxs
  });

  it('a comment that moves a line: the function using __LINE__ differs, the others do not', async () => {
    const base = await install(`${SLOT_A.slice(0, -1)}1`, SOURCE());
    const head = await install(`${SLOT_B.slice(0, -1)}1`, SOURCE({ comment: true }));
    const code = await compareCompiledCode(arm('base', base), arm('comment', head));
    expect(code.identical).toBe(false);
    expect(code.differingFiles).toEqual(['bin/postgres']);
    expect(code.serverFunctions!.changed).toContain('report');
    expect(code.serverFunctions!.changed).not.toContain('work');
    expect(code.serverFunctions!.total).toBeGreaterThanOrEqual(3);
  });

  it('a function that grew is named first', async () => {
    const base = await install(`${SLOT_A.slice(0, -1)}2`, SOURCE());
    const head = await install(`${SLOT_B.slice(0, -1)}2`, SOURCE({ grow: true }));
    const code = await compareCompiledCode(arm('base', base), arm('grow', head));
    expect(code.identical).toBe(false);
    expect(code.serverFunctions!.changed[0]).toBe('work');
    const fns = elfFunctions(await readFile(path.join(head, 'postgres')));
    expect(fns.map((f) => f.name)).toEqual(expect.arrayContaining(['main', 'report', 'work']));
  });

  it('a data file the server reads differs: not the same code', async () => {
    const base = await install(`${SLOT_A.slice(0, -1)}3`, SOURCE());
    const head = await install(`${SLOT_B.slice(0, -1)}3`, SOURCE());
    await writeFile(path.join(head, '..', 'share', 'postgres.bki'), 'create pg_class\n');
    const code = await compareCompiledCode(arm('base', base), arm('head', head));
    expect(code).toMatchObject({ identical: false, differingFiles: ['share/postgres.bki'] });
    expect(code.serverFunctions).toBeUndefined();
  });

  it('prefixes of different lengths cannot be masked alike: not compared, and said why', async () => {
    const base = await install('short', SOURCE());
    const head = await install('a-longer-prefix', SOURCE());
    const code = await compareCompiledCode(arm('base', base), arm('head', head));
    expect(code.identical).toBe(false);
    expect(code.unknown).toMatch(/differ in length/);
  });
});
