/**
 * The runner's facts of `pgperf doctor` (src/postgres/runner-facts.ts) on injected runners: a PATH directory
 * holding stand-ins for the programs that are "installed", a process runner that answers pkg-config, valgrind,
 * perf, getent and `test -x` as a machine would, a fake /usr/lib/postgresql, and free space per directory.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Fact } from '../../../src/core/results/result-types.js';
import type { ProcessResult, ProcessRunner, RunOptions } from '../../../src/machine/os/process.js';
import { RUNNER_LIMITS, runnerFacts, type RunnerFactsOptions } from '../../../src/postgres/runner-facts.js';
import { useTmpDir } from '../../helpers/tmp-dir.js';

const GiB = 1024 ** 3;
const EVERY_PROGRAM = [
  'gcc',
  'make',
  'meson',
  'ninja',
  'bison',
  'flex',
  'perl',
  'pkg-config',
  'git',
  'ccache',
  'valgrind',
  'perf',
  'sysbench',
  'useradd',
];

interface Machine {
  /** pkg-config libraries that are missing. */
  missingLibs?: string[];
  /** valgrind --version's output; undefined: not installed. */
  valgrind?: string;
  /** perf stat's exit code and stderr; undefined: not installed. */
  perf?: { exitCode: number; stderr: string };
  /** getent passwd lines by user name. */
  users?: Record<string, string>;
  /** Directories `test -x` fails for. */
  closed?: string[];
}

interface Call {
  command: string;
  args: string[];
  options?: RunOptions;
}

function fakeRunner(m: Machine): { runner: ProcessRunner; calls: Call[] } {
  const calls: Call[] = [];
  const result = (exitCode: number | null, stdout = '', stderr = ''): ProcessResult => ({
    command: [],
    exitCode,
    signal: null,
    stdout,
    stderr,
    durationMs: 1,
    timedOut: false,
    ...(exitCode === null ? { spawnError: 'ENOENT' } : {}),
  });
  const runner: ProcessRunner = {
    run(command, args, options) {
      calls.push({ command, args, options });
      if (command === 'pkg-config') return Promise.resolve(result(m.missingLibs?.includes(args[1]!) ? 1 : 0));
      if (command === 'valgrind')
        return Promise.resolve(m.valgrind ? result(0, `${m.valgrind}\n`) : result(null));
      if (command === 'perf')
        return Promise.resolve(m.perf ? result(m.perf.exitCode, '', m.perf.stderr) : result(null));
      if (command === 'getent') {
        const line = m.users?.[args[1]!];
        return Promise.resolve(line ? result(0, `${line}\n`) : result(2));
      }
      if (command === 'test') return Promise.resolve(result(m.closed?.includes(args[1]!) ? 1 : 0));
      throw new Error(`unexpected command ${command} ${args.join(' ')}`);
    },
  };
  return { runner, calls };
}

const tmp = useTmpDir('pgperf-runner-facts-');
let pathWith: (programs: readonly string[]) => Promise<string>;
let postgresDir: string;

beforeAll(async () => {
  let n = 0;
  pathWith = async (programs) => {
    const bin = path.join(tmp(), `bin${n++}`);
    await mkdir(bin);
    for (const p of programs) {
      await writeFile(path.join(bin, p), '#!/bin/sh\nexit 0\n');
      await chmod(path.join(bin, p), 0o755);
    }
    return bin;
  };
  postgresDir = path.join(tmp(), 'usr-lib-postgresql');
  for (const [version, programs] of [
    ['15', ['initdb', 'pgbench']],
    ['17', ['initdb', 'pgbench', 'postgres']],
    ['16', ['initdb']], // a server without pgbench (postgresql-16 without contrib's client): not usable
  ] as const) {
    await mkdir(path.join(postgresDir, version, 'bin'), { recursive: true });
    for (const p of programs) {
      await writeFile(path.join(postgresDir, version, 'bin', p), '#!/bin/sh\n');
      await chmod(path.join(postgresDir, version, 'bin', p), 0o755);
    }
  }
});

const HEALTHY: Machine = {
  valgrind: 'valgrind-3.19.0',
  perf: { exitCode: 0, stderr: '1234567,,instructions:u,100.00,,\n' },
  users: { pgperf: 'pgperf:x:999:999::/nonexistent:/usr/sbin/nologin' },
};

async function facts(
  m: Machine,
  o: Partial<RunnerFactsOptions> & { programs?: readonly string[]; free?: Record<string, number> } = {},
): Promise<{ byId: Record<string, Fact>; list: Fact[]; calls: Call[] }> {
  const { runner, calls } = fakeRunner(m);
  const { programs, free, ...rest } = o;
  const list = await runnerFacts({
    env: { PATH: await pathWith(programs ?? EVERY_PROGRAM) },
    runner,
    uid: 0,
    userName: 'root',
    cacheDir: '/var/cache/pgperf',
    tmpDir: '/tmp',
    postgresDir,
    freeBytes: (dir) => Promise.resolve((free ?? {})[dir] ?? 50 * GiB),
    ...rest,
  });
  return { byId: Object.fromEntries(list.map((f) => [f.id, f])), list, calls };
}

describe('runner facts', () => {
  it('a runner with everything: every fact ok, in the page order, tools, disk, users', async () => {
    const { list, byId } = await facts(HEALTHY);
    expect(list.map((f) => f.id)).toEqual([
      'buildTools',
      'ccache',
      'valgrind',
      'perf',
      'sysbench',
      'postgresPackages',
      'cacheDisk',
      'tmpDisk',
      'dropCaches',
      'runAs',
      'runAsReach',
    ]);
    expect(list.map((f) => f.verdict)).toEqual(list.map(() => 'ok'));
    expect(byId.buildTools!.value).toBe(
      'gcc, make, meson, ninja, bison, flex, perl, pkg-config, git; readline, zlib, ICU',
    );
    expect(byId.valgrind!.value).toBe('valgrind-3.19.0');
    expect(byId.perf!.value).toMatch(/\/perf: counts instructions:u$/);
    expect(byId.postgresPackages!.value).toBe(`15, 17 (${postgresDir}/N/bin)`);
    expect(byId.cacheDisk!.value).toBe('50 GB free at /var/cache/pgperf');
    expect(byId.runAs!.value).toBe('pgperf (uid 999)');
    expect(byId.runAsReach!.value).toBe('pgperf can enter /var/cache/pgperf and /tmp');
  });

  it('says whether cold starts can drop the page cache, and that the drop is machine-wide', async () => {
    const file = path.join(tmp(), 'drop_caches');
    await writeFile(file, '');
    const can = (await facts(HEALTHY, { dropCachesFile: file })).byId.dropCaches!;
    expect(can).toMatchObject({
      group: 'kernel',
      name: 'page cache drop (workload coldStart)',
      verdict: 'ok',
    });
    expect(can.value).toBe(
      `${file} is writable: cold-start workloads drop the page cache before every measured run, machine-wide (every process on this machine loses its cached files)`,
    );
    // Reported, never a warning: only cold-start workloads drop it, and they run (less cold) without.
    const missing = path.join(tmp(), 'no-drop_caches');
    const cannot = (await facts(HEALTHY, { dropCachesFile: missing })).byId.dropCaches!;
    expect(cannot).toMatchObject({ verdict: 'ok' });
    expect(cannot.value).toBe(
      `${missing} is not writable (ENOENT): cold-start runs start with only their shared buffers evicted; where pgperf may drop it, the drop is machine-wide`,
    );
  });

  it('a bare machine: each missing tool is a warning whose fix installs its Debian package', async () => {
    const { list, byId } = await facts({ users: HEALTHY.users }, { programs: [], postgresDir: tmp() });
    expect(byId.buildTools).toMatchObject({
      verdict: 'warn',
      value:
        'missing: gcc (gcc), git (git), bison (bison), flex (flex), perl (perl), pkg-config (pkg-config), ' +
        'meson (meson), ninja (ninja-build), make (make) (libraries not checked without pkg-config)',
      fix: 'apt-get install gcc git bison flex perl pkg-config meson ninja-build make',
    });
    expect(byId.buildTools!.why).toContain('prebuilt bin dirs still work');
    expect(byId.ccache).toMatchObject({ verdict: 'warn', fix: 'apt-get install ccache' });
    expect(byId.valgrind).toMatchObject({ verdict: 'warn', fix: 'apt-get install valgrind' });
    expect(byId.perf).toMatchObject({ verdict: 'warn', value: 'not installed' });
    expect(byId.perf!.fix).toMatch(/^apt-get install linux-perf /);
    expect(byId.sysbench).toMatchObject({ verdict: 'warn', fix: 'apt-get install sysbench' });
    expect(byId.postgresPackages).toMatchObject({ verdict: 'warn', value: `none under ${tmp()}` });
    expect(byId.postgresPackages!.fix).toMatch(/^apt-get install postgresql postgresql-contrib/);
    // A missing tool never makes the machine unfit: the run that needs it is refused, naming the package.
    for (const f of list) expect(f.verdict).not.toBe('bad');
    for (const f of list.filter((f) => f.verdict !== 'ok')) {
      expect(f.why).toBeTruthy();
      expect(f.fix).toBeTruthy();
    }
  });

  it('libraries are asked of pkg-config, and a missing one names its -dev package once', async () => {
    const { byId, calls } = await facts({ ...HEALTHY, missingLibs: ['icu-uc', 'icu-i18n'] });
    expect(byId.buildTools).toMatchObject({
      verdict: 'warn',
      value: 'missing: library icu-uc (libicu-dev)',
      fix: 'apt-get install libicu-dev',
    });
    expect(calls.filter((c) => c.command === 'pkg-config').map((c) => c.args)).toEqual([
      ['--exists', 'readline'],
      ['--exists', 'zlib'],
      ['--exists', 'icu-uc'],
      ['--exists', 'icu-i18n'],
    ]);
  });

  it('the compiler is $CC without its ccache wrapper', async () => {
    const { byId } = await facts(HEALTHY, {
      env: { PATH: await pathWith(EVERY_PROGRAM), CC: 'ccache clang' },
    });
    expect(byId.buildTools).toMatchObject({ verdict: 'warn', value: 'missing: clang (gcc)' });
  });

  it('perf that cannot count says why in words, and stays ok: cachegrind counts instead', async () => {
    const noPmu = await facts({
      ...HEALTHY,
      perf: { exitCode: 0, stderr: '<not supported>,,instructions:u,0,100.00,,\n' },
    });
    expect(noPmu.byId.perf!.verdict).toBe('ok');
    expect(noPmu.byId.perf!.value).toMatch(
      /cannot count instructions:u here \(the CPU exposes no instruction counter, as in most VMs\); the instruction mode counts with cachegrind$/,
    );
    const paranoid = await facts({
      ...HEALTHY,
      perf: {
        exitCode: 255,
        stderr:
          'Error:\nNo permission to enable instructions:u event.\n\nConsider adjusting /proc/sys/kernel/perf_event_paranoid setting\n',
      },
    });
    expect(paranoid.byId.perf!.value).toContain('(perf_event_paranoid forbids it for this user)');
  });

  it('free disk: the cache is bad below what a build needs, a warning below 10 GiB; the temp dir a warning below 4 GiB', async () => {
    const verdicts = async (cache: number, tmp: number) => {
      const { byId } = await facts(HEALTHY, { free: { '/var/cache/pgperf': cache, '/tmp': tmp } });
      return [byId.cacheDisk!.verdict, byId.tmpDisk!.verdict];
    };
    expect(await verdicts(1 * GiB, 1 * GiB)).toEqual(['bad', 'warn']);
    expect(await verdicts(RUNNER_LIMITS.cacheFreeBad, 4 * GiB)).toEqual(['warn', 'ok']);
    expect(await verdicts(5 * GiB, 3.9 * GiB)).toEqual(['warn', 'warn']);
    expect(await verdicts(10 * GiB, 100 * GiB)).toEqual(['ok', 'ok']);
    const { byId } = await facts(HEALTHY, { free: { '/var/cache/pgperf': GiB } });
    expect(byId.cacheDisk).toMatchObject({ value: '1 GB free at /var/cache/pgperf' });
    expect(byId.cacheDisk!.why).toBe('a build needs 2 GB free in the cache and is refused with less');
    expect(byId.cacheDisk!.fix).toContain(
      '/var/cache/pgperf/installs can be deleted) or pass --cache-dir DIR',
    );
  });

  it('not root: PostgreSQL runs as this user, no run-as user and no reach check', async () => {
    const { byId, calls } = await facts(HEALTHY, { uid: 1000, userName: 'runner' });
    expect(byId.runAs).toMatchObject({ verdict: 'ok' });
    expect(byId.runAs!.value).toBe('runner (uid 1000), the user that runs pgperf: no other user is needed');
    expect(byId.runAsReach).toBeUndefined();
    expect(calls.map((c) => c.command)).not.toContain('getent');
  });

  it('root: the run-as user is checked as pgperf would use it', async () => {
    const missing = await facts({ ...HEALTHY, users: {} });
    expect(missing.byId.runAs).toMatchObject({ verdict: 'ok' });
    expect(missing.byId.runAs!.value).toMatch(/^pgperf: not there yet; the first run creates it/);

    const noUseradd = await facts(
      { ...HEALTHY, users: {} },
      { programs: EVERY_PROGRAM.filter((p) => p !== 'useradd') },
    );
    expect(noUseradd.byId.runAs).toMatchObject({
      verdict: 'bad',
      value: 'pgperf: missing, and no useradd to create it',
    });
    expect(noUseradd.byId.runAs!.fix).toMatch(/^useradd --system .* pgperf /);
    expect(noUseradd.byId.runAsReach).toBeUndefined();

    const rootAlias = await facts(
      { ...HEALTHY, users: { toor: 'toor:x:0:0::/root:/bin/bash' } },
      { runAs: 'toor' },
    );
    expect(rootAlias.byId.runAs).toMatchObject({ verdict: 'bad', value: 'toor has uid 0 (root)' });
    const named = await facts(HEALTHY, { runAs: 'root' });
    expect(named.byId.runAs).toMatchObject({ verdict: 'bad', value: 'root: not an unprivileged user name' });
    const chosen = await facts(
      { ...HEALTHY, users: { bench: 'bench:x:1500:1500::/home/bench:/bin/sh' } },
      { runAs: 'bench' },
    );
    expect(chosen.byId.runAs).toMatchObject({ verdict: 'ok', value: 'bench (uid 1500)' });
  });

  it('root: an existing run-as user is asked with test -x, as that user, whether it can enter the cache and the temp dir', async () => {
    const cache = path.join(tmp(), 'cache');
    await mkdir(cache, { recursive: true });
    const { byId, calls } = await facts({ ...HEALTHY, closed: [cache] }, { cacheDir: cache });
    expect(calls.filter((c) => c.command === 'test')).toEqual([
      { command: 'test', args: ['-x', cache], options: { uid: 999, gid: 999, cwd: '/' } },
      { command: 'test', args: ['-x', '/tmp'], options: { uid: 999, gid: 999, cwd: '/' } },
    ]);
    expect(byId.runAsReach).toMatchObject({
      verdict: 'bad',
      value: `pgperf cannot enter ${cache} (${cache})`,
    });
    expect(byId.runAsReach!.fix).toContain('--cache-dir /var/cache/pgperf');
  });

  it('root: a run-as user not created yet needs every directory on the way searchable by others', async () => {
    const home = path.join(tmp(), 'home');
    await mkdir(path.join(home, 'inner'), { recursive: true });
    await chmod(home, 0o700);
    const open = path.join(tmp(), 'open');
    await mkdir(open);
    // The cache does not exist yet: its deepest existing parent decides.
    const shut = await facts(
      { ...HEALTHY, users: {} },
      { cacheDir: path.join(home, 'inner', 'cache'), tmpDir: open },
    );
    expect(shut.byId.runAsReach).toMatchObject({
      verdict: 'bad',
      value: `pgperf cannot enter ${path.join(home, 'inner', 'cache')} (${home}: mode 700)`,
    });
    const fine = await facts({ ...HEALTHY, users: {} }, { cacheDir: path.join(open, 'cache'), tmpDir: open });
    expect(fine.byId.runAsReach).toMatchObject({ verdict: 'ok' });
  });
});
