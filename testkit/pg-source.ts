/**
 * Real PostgreSQL source for build tests and the build bench: an upstream release tarball from Debian's
 * source archive (scripts/setup.sh downloads them) turned into a local git repository with a base
 * commit and a head commit that changes one .c file. Author, committer and dates are fixed, so the
 * shas are the same on every run and machine, and a warm build cache hits.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { nodeProcessRunner, type ProcessResult } from '../src/machine/os/process.js';

/** Where scripts/setup.sh puts the tarballs (`apt-get source --download-only postgresql-N`). */
export const SOURCES_DIR = process.env.PGPERF_SOURCES_DIR ?? '/var/cache/pgperf/sources';

/**
 * The build tests' cache directory: a fixed path (not a temp dir) so that a warm machine's suite finds
 * its installs and ccache from the last run. Readable by the unprivileged user PostgreSQL runs as.
 */
export function testCacheDir(): string {
  return process.env.PGPERF_TEST_CACHE ?? '/var/cache/pgperf-test';
}

/** The file the head commit changes. */
export const CHANGED_FILE = 'src/backend/utils/adt/int.c';

const FIXED_ENV = {
  GIT_AUTHOR_NAME: 'pgperf fixture',
  GIT_AUTHOR_EMAIL: 'fixture@pgperf.invalid',
  GIT_COMMITTER_NAME: 'pgperf fixture',
  GIT_COMMITTER_EMAIL: 'fixture@pgperf.invalid',
  GIT_AUTHOR_DATE: '2025-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2025-01-01T00:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  LC_ALL: 'C',
};

export interface PgSourceRepo {
  /** The repository (a plain directory: pass it as --repo). */
  dir: string;
  tarball: string;
  /** Branch "base": the release as in the tarball. */
  baseRef: string;
  baseSha: string;
  /** Branch "head": base plus a change to CHANGED_FILE. */
  headRef: string;
  headSha: string;
}

/** The upstream tarball of PostgreSQL `major`, or an error that says how to get it. */
export async function findTarball(major: number): Promise<string> {
  const names = await readdir(SOURCES_DIR).catch(() => [] as string[]);
  const name = names
    .filter((n) => n.startsWith(`postgresql-${major}_`) && /\.orig\.tar\.(bz2|gz|xz)$/.test(n))
    .sort()
    .pop();
  if (!name) {
    throw new Error(
      `no PostgreSQL ${major} source tarball in ${SOURCES_DIR}: run scripts/setup.sh (it downloads postgresql-${major} with apt-get source)`,
    );
  }
  return path.join(SOURCES_DIR, name);
}

/**
 * The test repository for PostgreSQL `major` at `dir` (made once from the tarball, then reused). The
 * head commit's change is a new function returning `variant`; another variant gives another head sha
 * (the bench uses a fresh one per run so that head is never a cache hit).
 */
export async function preparePgSourceRepo(input: {
  major: number;
  dir: string;
  variant?: number;
}): Promise<PgSourceRepo> {
  const tarball = await prepareBaseRepo(input);

  const variant = input.variant ?? 1;
  const file = path.join(input.dir, CHANGED_FILE);
  await git(input.dir, ['checkout', '--quiet', '--force', '-B', 'head', 'base']);
  const original = await readFile(file, 'utf8');
  await writeFile(
    file,
    `${original}\n/* pgperf test fixture: head changes this one .c file (variant ${variant}). */\n` +
      'extern int pgperf_fixture_variant(void);\n\nint\npgperf_fixture_variant(void)\n{\n' +
      `\treturn ${variant};\n}\n`,
  );
  await git(input.dir, [
    'commit',
    '--quiet',
    '--all',
    '--message',
    `head: change ${CHANGED_FILE} (variant ${variant})`,
  ]);
  await git(input.dir, ['checkout', '--quiet', 'base']);
  return {
    dir: input.dir,
    tarball,
    baseRef: 'base',
    baseSha: (await git(input.dir, ['rev-parse', 'base'])).stdout.trim(),
    headRef: 'head',
    headSha: (await git(input.dir, ['rev-parse', 'head'])).stdout.trim(),
  };
}

/**
 * The repository at `dir` with branch "base" (the release of `major` as in its tarball, one commit of fixed
 * sha), made once from the tarball and reused; returns the tarball.
 */
export async function prepareBaseRepo(input: { major: number; dir: string }): Promise<string> {
  const tarball = await findTarball(input.major);
  const marker = path.join(input.dir, '.git', 'pgperf-fixture');
  const made = await readFile(marker, 'utf8').catch(() => '');
  if (made.trim() !== path.basename(tarball)) await createBaseRepo(input.dir, tarball);
  return tarball;
}

async function createBaseRepo(dir: string, tarball: string): Promise<void> {
  const tmp = `${dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  await run('tar', ['-xf', tarball, '-C', tmp, '--strip-components=1']);
  await git(tmp, ['init', '--quiet', '--initial-branch=base']);
  // .gitignore files come with the tarball: prebuilt files (gram.c, ...) stay out, as in a git clone.
  await git(tmp, ['add', '--all']);
  await git(tmp, ['commit', '--quiet', '--message', `base: ${path.basename(tarball)}`]);
  await writeFile(path.join(tmp, '.git', 'pgperf-fixture'), `${path.basename(tarball)}\n`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(path.dirname(dir), { recursive: true });
  await rename(tmp, dir);
}

/** git with the fixture's fixed identity and dates (the same commits give the same shas everywhere). */
export function git(cwd: string, args: string[]): Promise<ProcessResult> {
  return run('git', ['-c', 'commit.gpgsign=false', ...args], cwd);
}

async function run(command: string, args: string[], cwd?: string): Promise<ProcessResult> {
  const res = await nodeProcessRunner.run(command, args, { cwd, env: { ...process.env, ...FIXED_ENV } });
  if (res.exitCode !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${res.exitCode}): ${res.stderr.slice(-2000)}`);
  }
  return res;
}
