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
import {
  compareCompiledCode,
  type FunctionComparisonOptions,
} from '../../src/postgres/builds/compiled-code.js';
import { elfFunctions, isElf64, withoutBuildId } from '../../src/postgres/builds/elf.js';
import { installFiles, SHAREDIR_KEY } from '../../src/postgres/builds/install-files.js';
import { installedBinDir } from '../../testkit/postgres.js';
import { readdir, readFile } from 'node:fs/promises';
import { installDeps } from '../helpers/run-as.js';

let tmp: string;
/** objdump runs as the run-as user when the tests are root, as the pipeline runs it. */
let options: FunctionComparisonOptions;

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
  await mkdir(path.join(dir, 'lib', 'postgresql', 'pgxs'), { recursive: true });
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
  // The server's modules are where it looks for them (a prefix without "postgres": lib/postgresql).
  await writeFile(path.join(dir, 'lib', 'postgresql', 'plpgsql.so'), 'a module\n');
  // Build files a benchmark never runs: their build paths differ, and they are not compared.
  await writeFile(
    path.join(dir, 'lib', 'postgresql', 'pgxs', 'Makefile.global'),
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
  options = { install: await installDeps() };
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

    const code = await compareCompiledCode(arm('base', base), arm('head', head), options);
    expect(code).toMatchObject({ head: 'head', identical: true, differingFiles: [], differingCount: 0 });
    // bin/postgres, bin/postmaster, lib/postgresql/plpgsql.so, share/postgres.bki; not pgxs
    expect(code.files).toBe(4);
  });

  it('a comment that moves a line: the function using __LINE__ differs, the others do not', async () => {
    const base = await install(`${SLOT_A.slice(0, -1)}1`, SOURCE());
    const head = await install(`${SLOT_B.slice(0, -1)}1`, SOURCE({ comment: true }));
    const code = await compareCompiledCode(arm('base', base), arm('comment', head), options);
    expect(code.identical).toBe(false);
    expect(code.differingFiles).toEqual(['bin/postgres']);
    expect(code.serverFunctions!.changed).toContain('report');
    expect(code.serverFunctions!.changed).not.toContain('work');
    expect(code.serverFunctions!.total).toBeGreaterThanOrEqual(3);
  });

  it('a function that grew is named first', async () => {
    const base = await install(`${SLOT_A.slice(0, -1)}2`, SOURCE());
    const head = await install(`${SLOT_B.slice(0, -1)}2`, SOURCE({ grow: true }));
    const code = await compareCompiledCode(arm('base', base), arm('grow', head), options);
    expect(code.identical).toBe(false);
    expect(code.serverFunctions!.changed[0]).toBe('work');
    const fns = elfFunctions(await readFile(path.join(head, 'postgres')));
    expect(fns.map((f) => f.name)).toEqual(expect.arrayContaining(['main', 'report', 'work']));
  });

  it('a data file the server reads differs: not the same code', async () => {
    const base = await install(`${SLOT_A.slice(0, -1)}3`, SOURCE());
    const head = await install(`${SLOT_B.slice(0, -1)}3`, SOURCE());
    await writeFile(path.join(head, '..', 'share', 'postgres.bki'), 'create pg_class\n');
    const code = await compareCompiledCode(arm('base', base), arm('head', head), options);
    expect(code).toMatchObject({ identical: false, differingFiles: ['share/postgres.bki'] });
    expect(code.serverFunctions).toBeUndefined();
  });

  it('prefixes of different lengths cannot be masked alike: not compared, and said why', async () => {
    const base = await install('short', SOURCE());
    const head = await install('a-longer-prefix', SOURCE());
    const code = await compareCompiledCode(arm('base', base), arm('head', head), options);
    expect(code.identical).toBe(false);
    expect(code.unknown).toMatch(/differ in length/);
  });
});

/**
 * On a real install: the machine's Debian PostgreSQL (scripts/setup.sh installs it), whose server keeps
 * its JIT bitcode in lib/bitcode and its data files outside the prefix, in /usr/share/postgresql/N. It is
 * copied once into a temp dir (its Debian layout kept); each case hard-links a base and a head from that
 * copy and changes the head's files by replacing them (never writing through a link shared with the copy).
 */
describe('compiled code of a real install and its changed copies', () => {
  let pristine: string;
  let major: string;
  let cases = 0;

  beforeAll(async () => {
    const binDir = installedBinDir();
    major = path.basename(path.dirname(binDir));
    pristine = path.join(tmp, 'real', 'pristine');
    await mkdir(path.join(pristine, 'usr'), { recursive: true });
    // What the cases need of it (the server, a link, its modules, some bitcode, the share dir), not all of
    // its 50 MB: a copy of the whole costs seconds.
    const prefix = `lib/postgresql/${major}`;
    const kept = [
      ...['bin/postgres', 'bin/postmaster', 'bin/pg_ctl', 'lib/plpgsql.so', 'lib/pgoutput.so'],
      ...['lib/bitcode/postgres.index.bc', 'lib/bitcode/postgres/executor'],
    ].map((f) => `${prefix}/${f}`);
    execFileSync(
      'cp',
      ['-a', '--parents', ...kept, `share/postgresql/${major}`, path.join(pristine, 'usr')],
      {
        cwd: '/usr',
      },
    );
  });

  /** A base and a head made from the copy, at paths of one length; their prefixes and share dirs. */
  async function pair() {
    const n = String(++cases).padStart(2, '0');
    const make = async (side: string) => {
      const root = path.join(tmp, 'real', `${side}${n}`);
      await mkdir(root);
      execFileSync('cp', ['-al', path.join(pristine, 'usr'), root]);
      return {
        prefix: path.join(root, 'usr', 'lib', 'postgresql', major),
        share: path.join(root, 'usr', 'share', 'postgresql', major),
      };
    };
    const base = await make('b');
    const head = await make('h');
    const compare = () =>
      compareCompiledCode(
        arm('base', path.join(base.prefix, 'bin')),
        arm('head', path.join(head.prefix, 'bin')),
        options,
      );
    return { base, head, compare };
  }

  /** Replaces a file (a new inode: the copy it was linked with keeps its bytes). */
  async function replace(file: string, text: string): Promise<void> {
    await rm(file);
    await writeFile(file, text);
  }

  it('an untouched copy: the same, its bitcode and its share dir outside the prefix compared', async () => {
    const { head, compare } = await pair();
    const seen = await installFiles(path.join(head.prefix, 'bin'));
    expect(seen.unknown).toBeUndefined();
    expect(seen.files.get(`${SHAREDIR_KEY}/postgresql.conf.sample`)).toEqual({
      kind: 'file',
      file: path.join(head.share, 'postgresql.conf.sample'),
    });
    expect(seen.files.get(`${SHAREDIR_KEY}/postgres.bki`)?.kind).toBe('file');
    expect(seen.files.get('lib/bitcode/postgres/executor/execExprInterp.bc')?.kind).toBe('file');
    expect(seen.files.get('bin/postmaster')).toEqual({ kind: 'link', to: 'bin/postgres' });
    expect([...seen.files.keys()].some((f) => f.startsWith(`${SHAREDIR_KEY}/man/`))).toBe(false);
    const code = await compare();
    expect(code).toMatchObject({ identical: true, differingFiles: [], differingCount: 0 });
    expect(code.files).toBe(seen.files.size);
    expect(code.files).toBeGreaterThan(300);
  });

  it('an emptied JIT bitcode file: not the same', async () => {
    const { head, compare } = await pair();
    await replace(path.join(head.prefix, 'lib/bitcode/postgres/executor/execExprInterp.bc'), '');
    const code = await compare();
    expect(code).toMatchObject({
      identical: false,
      differingFiles: ['lib/bitcode/postgres/executor/execExprInterp.bc'],
    });
    expect(code.serverFunctions).toBeUndefined();
  });

  it('an emptied JIT bitcode directory (every file of it removed): not the same, each missing file named', async () => {
    const { head, compare } = await pair();
    const dir = path.join(head.prefix, 'lib/bitcode/postgres/executor');
    const removed = (await readdir(dir)).sort();
    expect(removed.length).toBeGreaterThan(10);
    await rm(dir, { recursive: true });
    await mkdir(dir);
    const code = await compare();
    expect(code.identical).toBe(false);
    expect(code.differingCount).toBe(removed.length);
    expect(code.differingFiles).toContain('lib/bitcode/postgres/executor/execExprInterp.bc');
  });

  it('`fsync = off` in the sample configuration of the share dir outside the prefix: not the same', async () => {
    const { head, compare } = await pair();
    const sample = path.join(head.share, 'postgresql.conf.sample');
    await replace(sample, `${await readFile(sample, 'utf8')}fsync = off\n`);
    const code = await compare();
    expect(code).toMatchObject({
      identical: false,
      differingFiles: [`${SHAREDIR_KEY}/postgresql.conf.sample`],
    });
  });

  it('a link pointed elsewhere in the install: not the same', async () => {
    const { head, compare } = await pair();
    await rm(path.join(head.prefix, 'bin', 'postmaster'));
    await symlink('pg_ctl', path.join(head.prefix, 'bin', 'postmaster'));
    expect(await compare()).toMatchObject({ identical: false, differingFiles: ['bin/postmaster'] });
  });

  it('a link out of the install is a difference, though both installs hold the same link', async () => {
    const { base, head, compare } = await pair();
    const outside = path.join(pristine, 'usr', 'lib', 'postgresql', major, 'lib', 'pgoutput.so');
    for (const side of [base, head]) {
      await rm(path.join(side.prefix, 'lib', 'pgoutput.so'));
      await symlink(outside, path.join(side.prefix, 'lib', 'pgoutput.so'));
    }
    expect(await compare()).toMatchObject({
      identical: false,
      differingFiles: [`lib/pgoutput.so (a link out of the install (to ${outside}))`],
    });
  });

  it('a file pgperf does not know, and a FIFO (never read): not the same', async () => {
    const { head, compare } = await pair();
    await writeFile(path.join(head.prefix, 'lib', 'server.conf'), 'shared_buffers = 1MB\n');
    execFileSync('mkfifo', [path.join(head.share, 'extension', 'hang.sql')]);
    expect(await compare()).toMatchObject({
      identical: false,
      differingFiles: [`${SHAREDIR_KEY}/extension/hang.sql (not a regular file)`, 'lib/server.conf'],
      differingCount: 2,
    });
  });

  it('an install whose data files are not where its server looks: not compared, so measured', async () => {
    const { head, compare } = await pair();
    await rm(head.share, { recursive: true });
    const code = await compare();
    expect(code.identical).toBe(false);
    expect(code.unknown).toMatch(
      /has no postgres\.bki in .*: where its server finds its data files is unknown/,
    );
  });
});
