/**
 * The runner's own facts for `pgperf doctor`, beside the machine's sysfs/procfs ones (machine/preflight.ts):
 * the programs pgperf runs (the tools to build PostgreSQL, ccache, valgrind, perf, sysbench, an installed
 * PostgreSQL), free disk where builds and clusters go, whether pgperf may drop the page cache (machine-wide)
 * for cold-start workloads, and the unprivileged user PostgreSQL runs as when pgperf is root. Each is judged ok / warn / bad and a non-ok one carries the command that fixes it;
 * docs/runner.md lists them (test/unit/docs/runner-page.test.ts keeps the two in step).
 *
 * A missing tool is a warning, never bad: each is needed by some features only (a runner that compares
 * Debian's installs builds nothing), and the run that needs it fails naming the package. Bad means that
 * runs fail here: every build (less free cache space than a build starts with), or every run as root (a
 * run-as user that cannot exist, or cannot enter the cache or the temp dir).
 *
 * Fast: PATH lookups, `statfs`, and a handful of short child processes (pkg-config --exists for four
 * libraries, valgrind --version, `perf stat ... true`, getent, `test -x` as the run-as user).
 */
import { constants } from 'node:fs';
import { access, readdir, stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import type { Fact, FactVerdict } from '../core/results/result-types.js';
import { findOnPath } from '../machine/os/find-on-path.js';
import { DROP_CACHES_PATH } from '../machine/os/drop-caches.js';
import type { ProcessRunner } from '../machine/os/process.js';
import { formatBytes } from '../core/util/bytes.js';
import { MIN_FREE_BYTES } from './builds/cache.js';
import { findMissingDependencies, TOOL_PACKAGES, type MissingDependency } from './builds/deps.js';
import { compilerCommand } from './builds/toolchain.js';
import { DEFAULT_RUN_AS, lookupUser, type RunAsUser } from './cluster/run-as.js';
import { probeCounters } from './instructions/counter.js';

export interface RunnerFactsOptions {
  /** PATH (programs are looked up on it) and CC (the compiler a build uses). */
  env: NodeJS.ProcessEnv;
  runner: ProcessRunner;
  /** The uid pgperf runs as; 0 means PostgreSQL runs as the run-as user. */
  uid: number | undefined;
  /** Who that is, in words (the non-root case says PostgreSQL runs as this user). */
  userName: string;
  /** The build cache directory (--cache-dir, $PGPERF_CACHE_DIR or the default). */
  cacheDir: string;
  /** Where the clusters live during a run (--tmp-dir, else the OS temp dir: $TMPDIR or /tmp, as in the Action). */
  tmpDir: string;
  /** --run-as (default pgperf). */
  runAs?: string;
  /** Debian's PostgreSQL installs (default /usr/lib/postgresql; tests point it at a fixture). */
  postgresDir?: string;
  /** The kernel's page-cache drop file (default /proc/sys/vm/drop_caches; tests point it at a fixture). */
  dropCachesFile?: string;
  /** Free bytes of the file system holding `dir` (default: statfs of its deepest existing ancestor). */
  freeBytes?: (dir: string) => Promise<number | undefined>;
}

/** Thresholds, each with where it comes from. */
export const RUNNER_LIMITS = {
  /** Below this a build is refused before it starts (builds/cache.ts MIN_FREE_BYTES): bad. */
  cacheFreeBad: MIN_FREE_BYTES,
  /**
   * Below this the cache fills up over time: a build's 2 GiB, ccache's default 5 GiB limit, and the installs
   * nightly runs and bisections keep (about 40 MB each, measured on PostgreSQL 18.6).
   */
  cacheFreeWarn: 10 * 1024 ** 3,
  /**
   * The clusters of a run live in the temp dir. The least the README's tpcb-like workload takes on two arms:
   * per arm about 1 GB of data (scale 64, a pgbench scale unit being ~15 MB) and 1 GB of WAL kept for reuse
   * (min_wal_size, cluster/conf.ts); a write-heavy run adds WAL up to max_wal_size (8 GB) per cluster.
   */
  tmpFreeWarn: 4 * 1024 ** 3,
} as const;

const APT = 'apt-get install';

export async function runnerFacts(o: RunnerFactsOptions): Promise<Fact[]> {
  const free = o.freeBytes ?? freeBytesOf;
  const counters = await probeCounters(o.runner);
  const facts: Fact[] = [
    await buildToolsFact(o.env, o.runner),
    await ccacheFact(o.env),
    valgrindFact(counters.valgrind),
    await perfFact(o.env, counters.hardware, counters.hardwareWhy),
    await sysbenchFact(o.env),
    await postgresFact(o.postgresDir ?? '/usr/lib/postgresql'),
    cacheDiskFact(o.cacheDir, await free(o.cacheDir)),
    tmpDiskFact(o.tmpDir, await free(o.tmpDir)),
    await dropCachesFact(o.dropCachesFile ?? DROP_CACHES_PATH),
  ];
  if (o.uid !== 0) {
    facts.push({
      id: 'runAs',
      group: 'users',
      name: 'user PostgreSQL runs as',
      value: `${o.userName} (uid ${o.uid ?? '?'}), the user that runs pgperf: no other user is needed`,
      verdict: 'ok',
    });
    return facts;
  }
  const name = o.runAs ?? DEFAULT_RUN_AS;
  const { fact, user } = await runAsFact(name, o.env, o.runner);
  facts.push(fact);
  if (fact.verdict !== 'bad') facts.push(await runAsReachFact(name, user, [o.cacheDir, o.tmpDir], o.runner));
  return facts;
}

/**
 * Whether pgperf may drop the OS page cache, as a cold-start workload does before every measured run
 * (src/run/cold-start.ts): the drop file writable, as it is for root outside a container whose /proc/sys
 * is read-only. Reported, not judged: only `coldStart` workloads drop it, and where pgperf may not, their
 * runs start with only their shared buffers evicted. Either way the value says the drop is machine-wide.
 */
async function dropCachesFact(file: string): Promise<Fact> {
  const denied = await access(file, constants.W_OK).then(
    () => undefined,
    (e: NodeJS.ErrnoException) => e.code ?? String(e),
  );
  const why: Record<string, string> = { EACCES: 'not root', EROFS: 'read-only, as in a container' };
  return {
    id: 'dropCaches',
    group: 'kernel',
    name: 'page cache drop (workload coldStart)',
    value:
      denied === undefined
        ? `${file} is writable: cold-start workloads drop the page cache before every measured run, machine-wide (every process on this machine loses its cached files)`
        : `${file} is not writable (${denied}${why[denied] ? `: ${why[denied]}` : ''}): cold-start runs start with only their shared buffers evicted; where pgperf may drop it, the drop is machine-wide`,
    verdict: 'ok',
  };
}

/** "name (package)" for each missing dependency. */
const listMissing = (missing: readonly MissingDependency[]) =>
  missing.map((m) => `${m.kind === 'library' ? 'library ' : ''}${m.name} (${m.package})`).join(', ');

async function buildToolsFact(env: NodeJS.ProcessEnv, runner: ProcessRunner): Promise<Fact> {
  const compiler = compilerCommand(env).split(' ')[0]!;
  const missing: MissingDependency[] = [];
  const found = compiler.includes('/')
    ? await access(compiler, constants.X_OK).then(
        () => true,
        () => false,
      )
    : (await findOnPath(compiler, env.PATH)) !== undefined;
  if (!found) missing.push({ name: compiler, kind: 'program', package: TOOL_PACKAGES[compiler] ?? 'gcc' });
  // meson and ninja build PostgreSQL 16 and later, make (autoconf) 15 and earlier; the libraries are the
  // pinned options' (builds/build-options.ts), asked of pkg-config.
  missing.push(...(await findMissingDependencies('meson', env, runner)));
  if (!(await findOnPath('make', env.PATH))) missing.push({ name: 'make', kind: 'program', package: 'make' });
  if (missing.length === 0) {
    return {
      id: 'buildTools',
      group: 'tools',
      name: 'tools to build PostgreSQL',
      value: `${compiler}, make, meson, ninja, bison, flex, perl, pkg-config, git; readline, zlib, ICU`,
      verdict: 'ok',
    };
  }
  const packages = [...new Set(missing.map((m) => m.package))].join(' ');
  return {
    id: 'buildTools',
    group: 'tools',
    name: 'tools to build PostgreSQL',
    value: `missing: ${listMissing(missing)}${missing.some((m) => m.name === 'pkg-config') ? ' (libraries not checked without pkg-config)' : ''}`,
    verdict: 'warn',
    why: 'runs that build PostgreSQL from a commit (base-ref/head-ref, nightly, bisect, pgperf build) stop before building; prebuilt bin dirs still work',
    fix: `${APT} ${packages}`,
  };
}

/** A tool's fact: ok with where it is (or its version), else 'not installed' with why it matters and the fix. */
function toolFact(
  id: string,
  name: string,
  found: string | undefined,
  missing: { why: string; fix: string },
): Fact {
  return found
    ? { id, group: 'tools', name, value: found, verdict: 'ok' }
    : { id, group: 'tools', name, value: 'not installed', verdict: 'warn', ...missing };
}

async function ccacheFact(env: NodeJS.ProcessEnv): Promise<Fact> {
  return toolFact('ccache', 'ccache', await findOnPath('ccache', env.PATH), {
    why: 'builds share no compiled objects: a head that changes one file rebuilds everything (docs/building.md: 217 s instead of 33 s on 2 vCPUs)',
    fix: `${APT} ccache`,
  });
}

function valgrindFact(version: string | undefined): Fact {
  return toolFact('valgrind', 'valgrind (cachegrind)', version, {
    why: 'the instruction mode counts with cachegrind where the CPU has no counter perf can read, and --explain (input explain) always profiles with it; both are refused without valgrind',
    fix: `${APT} valgrind`,
  });
}

async function perfFact(env: NodeJS.ProcessEnv, counts: boolean, why: string | undefined): Promise<Fact> {
  const where = await findOnPath('perf', env.PATH);
  if (!where) {
    return {
      id: 'perf',
      group: 'tools',
      name: 'perf (the CPU instruction counter)',
      value: 'not installed',
      verdict: 'warn',
      why: 'the instruction mode cannot use the CPU counter (--instruction-counter perf, and auto on a CPU with one) and counts with cachegrind, 20-50x slower',
      fix: `${APT} linux-perf   (Ubuntu: linux-tools-$(uname -r))`,
    };
  }
  return {
    id: 'perf',
    group: 'tools',
    name: 'perf (the CPU instruction counter)',
    value: counts
      ? `${where}: counts instructions:u`
      : `${where}: cannot count instructions:u here (${perfReason(why)}); the instruction mode counts with cachegrind`,
    verdict: 'ok',
  };
}

/** Why perf cannot count, in words: perf's CSV line "<not supported>,,instructions:u,..." is a CPU without a PMU. */
function perfReason(why: string | undefined): string {
  if (why === undefined) return 'unknown';
  if (why.includes('<not supported>')) return 'the CPU exposes no instruction counter, as in most VMs';
  if (/permission|paranoid|not allowed/i.test(why)) return 'perf_event_paranoid forbids it for this user';
  return why;
}

async function sysbenchFact(env: NodeJS.ProcessEnv): Promise<Fact> {
  return toolFact('sysbench', 'sysbench', await findOnPath('sysbench', env.PATH), {
    why: 'workloads with tool: sysbench (the shipped sysbench-oltp-*) are refused; pgbench workloads run',
    fix: `${APT} sysbench`,
  });
}

/** Debian's installs: /usr/lib/postgresql/N/bin with initdb and pgbench, newest last. */
async function postgresFact(dir: string): Promise<Fact> {
  const versions: string[] = [];
  for (const v of (await readdir(dir).catch(() => [] as string[])).sort((a, b) => Number(a) - Number(b))) {
    const bin = path.join(dir, v, 'bin');
    const usable = await Promise.all(
      ['initdb', 'pgbench'].map((p) =>
        access(path.join(bin, p), constants.X_OK).then(
          () => true,
          () => false,
        ),
      ),
    );
    if (usable.every(Boolean)) versions.push(v);
  }
  return versions.length
    ? {
        id: 'postgresPackages',
        group: 'tools',
        name: 'installed PostgreSQL (server and pgbench)',
        value: `${versions.join(', ')} (${dir}/N/bin)`,
        verdict: 'ok',
      }
    : {
        id: 'postgresPackages',
        group: 'tools',
        name: 'installed PostgreSQL (server and pgbench)',
        value: `none under ${dir}`,
        verdict: 'warn',
        why: 'the demo and arms given as bin directories (--arm base=/usr/lib/postgresql/15/bin, inputs base-bin-dir/head-bin-dir) need one; arms built from a commit bring their own',
        fix: `${APT} postgresql postgresql-contrib   (or: bash scripts/setup.sh, which keeps Debian's own cluster from starting)`,
      };
}

function diskValue(dir: string, free: number | undefined): string {
  return free === undefined
    ? `unknown (${dir} and its parents cannot be read)`
    : `${formatBytes(free)} free at ${dir}`;
}

function cacheDiskFact(dir: string, free: number | undefined): Fact {
  const verdict: FactVerdict =
    free === undefined || free >= RUNNER_LIMITS.cacheFreeWarn
      ? 'ok'
      : free < RUNNER_LIMITS.cacheFreeBad
        ? 'bad'
        : 'warn';
  const fix = `free space (old installs under ${path.join(dir, 'installs')} can be deleted) or pass --cache-dir DIR (input cache-dir) on a larger disk`;
  return {
    id: 'cacheDisk',
    group: 'disk',
    name: 'build cache',
    value: diskValue(dir, free),
    verdict,
    ...(verdict === 'bad'
      ? {
          why: `a build needs ${formatBytes(RUNNER_LIMITS.cacheFreeBad)} free in the cache and is refused with less`,
          fix,
        }
      : verdict === 'warn'
        ? {
            why: `less than ${formatBytes(RUNNER_LIMITS.cacheFreeWarn)}: room for a few builds, not for ccache's default 5 GB and the installs nightly runs and bisections keep`,
            fix,
          }
        : {}),
  };
}

function tmpDiskFact(dir: string, free: number | undefined): Fact {
  const low = free !== undefined && free < RUNNER_LIMITS.tmpFreeWarn;
  return {
    id: 'tmpDisk',
    group: 'disk',
    name: 'cluster directory (temp dir)',
    value: diskValue(dir, free),
    verdict: low ? 'warn' : 'ok',
    ...(low
      ? {
          why: `less than ${formatBytes(RUNNER_LIMITS.tmpFreeWarn)}: the clusters of a run live here, and two arms of tpcb-like at scale 64 take about that (data and WAL), more while they write`,
          fix: 'free space, or pass --tmp-dir DIR on a larger disk (the Action: TMPDIR in the runner service environment)',
        }
      : {}),
  };
}

async function runAsFact(
  name: string,
  env: NodeJS.ProcessEnv,
  runner: ProcessRunner,
): Promise<{ fact: Fact; user?: RunAsUser }> {
  const base = { id: 'runAs', group: 'users', name: 'user PostgreSQL runs as (pgperf is root)' } as const;
  if (name === 'root' || !/^[a-z_][a-z0-9_-]{0,31}$/.test(name)) {
    return {
      fact: {
        ...base,
        value: `${name}: not an unprivileged user name`,
        verdict: 'bad',
        why: 'PostgreSQL refuses to run as root; pgperf refuses the name',
        fix: `pass --run-as (input run-as) an unprivileged user, or leave the default ${DEFAULT_RUN_AS}`,
      },
    };
  }
  const user = await lookupUser(name, runner);
  if (user?.uid === 0) {
    return {
      fact: {
        ...base,
        value: `${name} has uid 0 (root)`,
        verdict: 'bad',
        why: 'PostgreSQL refuses to run as root',
        fix: `pass --run-as (input run-as) an unprivileged user, or leave the default ${DEFAULT_RUN_AS}`,
      },
    };
  }
  if (user) return { fact: { ...base, value: `${name} (uid ${user.uid})`, verdict: 'ok' }, user };
  if (await findOnPath('useradd', env.PATH)) {
    return {
      fact: {
        ...base,
        value: `${name}: not there yet; the first run creates it (useradd --system, no home, no login shell)`,
        verdict: 'ok',
      },
    };
  }
  return {
    fact: {
      ...base,
      value: `${name}: missing, and no useradd to create it`,
      verdict: 'bad',
      why: 'pgperf cannot create the user PostgreSQL runs as, so no cluster can start',
      fix: `useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin ${name}   (as pgperf would; or install the passwd package for useradd)`,
    },
  };
}

/**
 * Whether the run-as user can enter the cache (it executes the installs there) and the temp dir (the
 * clusters): `test -x` as that user, as the cluster itself checks; a user that does not exist yet will be a
 * new system user in its own group, so every directory on the way must be searchable by others.
 */
async function runAsReachFact(
  name: string,
  user: RunAsUser | undefined,
  dirs: readonly string[],
  runner: ProcessRunner,
): Promise<Fact> {
  const blocked: string[] = [];
  for (const dir of dirs) {
    const existing = await deepestExisting(dir);
    if (!existing) continue;
    if (user) {
      const res = await runner.run('test', ['-x', existing], { uid: user.uid, gid: user.gid, cwd: '/' });
      if (res.exitCode !== 0) blocked.push(`${dir} (${(await privateAncestor(existing)) ?? existing})`);
    } else {
      const closed = await privateAncestor(existing);
      if (closed) blocked.push(`${dir} (${closed})`);
    }
  }
  const base = { id: 'runAsReach', group: 'users', name: `directories ${name} must enter` } as const;
  if (blocked.length === 0)
    return { ...base, value: `${name} can enter ${dirs.join(' and ')}`, verdict: 'ok' };
  return {
    ...base,
    value: `${name} cannot enter ${blocked.join(', ')}`,
    verdict: 'bad',
    why: `PostgreSQL runs as ${name}: it executes the installs in the build cache and keeps its clusters in the temp dir; a private parent (e.g. /root, mode 700) stops it`,
    fix: 'choose directories outside private homes: --cache-dir /var/cache/pgperf (the default as root) and --tmp-dir /tmp, or open the parent with chmod o+x',
  };
}

/** The directory itself, or the deepest of its parents that exists (a cache not made yet). */
async function deepestExisting(dir: string): Promise<string | undefined> {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const st = await stat(d).catch(() => undefined);
    if (st?.isDirectory()) return d;
    if (d === path.dirname(d)) return undefined;
  }
}

/** The first directory from / down to `dir` that others cannot search, as "/root: mode 700". */
async function privateAncestor(dir: string): Promise<string | undefined> {
  const chain: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    chain.unshift(d);
    if (d === path.dirname(d)) break;
  }
  for (const d of chain) {
    const st = await stat(d).catch(() => undefined);
    if (st && (st.mode & 0o001) === 0) return `${d}: mode ${(st.mode & 0o777).toString(8)}`;
  }
  return undefined;
}

/** Free bytes for an unprivileged writer on the file system of `dir`, or of its deepest existing parent. */
async function freeBytesOf(dir: string): Promise<number | undefined> {
  const existing = await deepestExisting(dir);
  if (!existing) return undefined;
  const fs = await statfs(existing).catch(() => undefined);
  return fs ? fs.bavail * fs.bsize : undefined;
}
