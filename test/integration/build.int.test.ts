/**
 * Building PostgreSQL from real source (release tarballs from Debian's source archive turned into local
 * git repositories, testkit/pg-source.ts): meson (18) and autoconf (15), base and a head that
 * changes one .c file, patches, the cache, the CLI, a short benchmark on the built arms, and bad input.
 *
 * The cache directory is fixed (testCacheDir(): $PGPERF_TEST_CACHE or /var/cache/pgperf-test), so a warm
 * machine finds every install from the last run and this file takes about a minute; the first run on
 * a machine compiles PostgreSQL 18 and 15 (about 12 minutes on 2 cores).
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildComparison, type ComparisonRequest } from '../../src/postgres/builds/build-pair.js';
import { buildArms } from '../../src/flows/compare/pipeline/build-stage.js';
import type { BuildRequest } from '../../src/postgres/builds/build-record.js';
import { buildPostgres } from '../../src/postgres/builds/build.js';
import { BuildStepError } from '../../src/postgres/builds/builder.js';
import { cacheLayout, COMPLETE_MARKER } from '../../src/postgres/builds/cache.js';
import { readPatches } from '../../src/postgres/builds/patches.js';
import { parseRepo } from '../../src/postgres/builds/source.js';
import { main } from '../../src/adapters/cli/commands/main.js';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { runBenchmark } from '../../src/run/run-loop.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import {
  CHANGED_FILE,
  preparePgSourceRepo,
  testCacheDir,
  type PgSourceRepo,
} from '../../testkit/pg-source.js';
import { processesMentioning } from '../../testkit/postgres.js';
import { resolveAnalysis } from '../../src/core/compare/analysis/recorded-analysis.js';
import { fileSink } from '../../src/run/sink.js';

const BUILD_TIMEOUT_MS = 40 * 60_000; // a cold build; a warm machine needs seconds
const cacheDir = testCacheDir();
const layout = cacheLayout(cacheDir);
let pg18: PgSourceRepo;
let tmp: string;

beforeAll(async () => {
  await mkdir(cacheDir, { recursive: true, mode: 0o755 });
  await chmod(cacheDir, 0o755); // PostgreSQL runs as an unprivileged user and executes the installs
  pg18 = await preparePgSourceRepo({ major: 18, dir: path.join(cacheDir, 'repos', 'pg18') });
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-build-'));
  await chmod(tmp, 0o755);
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const deps = (logger = memoryLogger(), env?: NodeJS.ProcessEnv) => ({
  runner: nodeProcessRunner,
  logger,
  env,
});

function request(repo: PgSourceRepo, extra: Partial<BuildRequest> = {}): BuildRequest {
  return {
    label: 'test',
    repo: parseRepo(repo.dir, process.cwd()),
    ref: repo.baseRef,
    patches: [],
    extraOptions: [],
    cacheDir,
    ...extra,
  };
}

/** The base/head build of the PostgreSQL 18 repository at two of its refs, nothing patched. */
function pg18Comparison(
  baseRef: string,
  headRef: string,
  extra: Partial<ComparisonRequest> = {},
): ComparisonRequest {
  return {
    repo: parseRepo(pg18.dir, process.cwd()),
    baseRef,
    headRef,
    mergeBase: false,
    basePatches: [],
    headPatches: [],
    extraOptions: [],
    cacheDir,
    ...extra,
  };
}

const tiny = parseWorkload(
  'name: tiny\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 1\n',
  'tiny.yml',
);

/** Nothing half-cached: every install has its marker; no lock, work tree or registered worktree is left. */
async function expectNothingHalfCached(): Promise<void> {
  const unmarked: string[] = [];
  for (const dir of await readdir(layout.installs).catch(() => [] as string[])) {
    const marked = await stat(path.join(layout.installs, dir, COMPLETE_MARKER)).then(
      () => true,
      () => false,
    );
    if (!marked) unmarked.push(dir);
  }
  expect(unmarked).toEqual([]);
  expect(await readdir(layout.locks).catch(() => [])).toEqual([]);
  expect(await readdir(layout.builds).catch(() => [])).toEqual([]);
  for (const mirror of await readdir(layout.git).catch(() => [] as string[])) {
    const list = execFileSync('git', ['--git-dir', path.join(layout.git, mirror), 'worktree', 'list'], {
      encoding: 'utf8',
    });
    expect(list.trim().split('\n')).toHaveLength(1); // the bare mirror itself
  }
  expect(processesMentioning(layout.builds)).toEqual([]);
}

describe('building PostgreSQL 18 (meson) from a git repository', () => {
  it(
    'builds base and a head that changes one .c file, records both, and benchmarks them',
    async () => {
      const logger = memoryLogger();
      const { base, head } = await buildComparison(pg18Comparison('base', 'head'), deps(logger));
      for (const [built, sha] of [
        [base, pg18.baseSha],
        [head, pg18.headSha],
      ] as const) {
        expect(built.record).toMatchObject({
          sha,
          buildSystem: 'meson',
          serverVersion: 'postgres (PostgreSQL) 18.6',
          compiler: { command: 'gcc', version: expect.stringMatching(/^gcc .* \d+\.\d+/) },
          installPrefix: built.installDir,
          repo: pg18.dir,
        });
        expect(built.record.options).toEqual(
          expect.arrayContaining([
            '-Dcassert=false',
            '-Ddebug=false',
            '-Doptimization=2',
            '-Dauto_features=disabled',
            '-Dlibdir=lib',
          ]),
        );
        expect(built.record.cflags).toMatch(/-O2/);
        expect(built.installDir.startsWith(`${layout.installs}/`)).toBe(true);
        expect(built.binDir).toBe(path.join(built.installDir, 'bin'));
      }
      expect(base.record.baseChosenBy).toBe('explicit ref');
      expect(head.installDir).not.toBe(base.installDir);
      // Head was built after base with the same ccache: everything but the changed file hits.
      if (!head.record.cacheHit) expect(head.record.ccache!.hitRate).toBeGreaterThan(0.9);
      expect(
        logger.lines.some((l) => /^build head(?: \(sha [0-9a-f]{7}, meson\): .*compile|: cache hit)/.test(l)),
      ).toBe(true);

      const result = await runBenchmark(
        {
          arms: [
            { label: 'base', binDir: base.binDir, settings: {}, build: { ...base.record } },
            { label: 'head', binDir: head.binDir, settings: {}, build: { ...head.record } },
          ],
          workloads: [tiny],
          order: 'random',
          seed: 3,
          sink: fileSink(path.join(tmp, 'run', 'results.json')),
          analysis: resolveAnalysis(),
          dataChecksums: false,
          tmpDir: tmp,
        },
        { runner: nodeProcessRunner, logger: memoryLogger() },
      );
      expect(result.status).toBe('complete');
      expect(result.samples.map((s) => s.status)).toEqual(['ok', 'ok']);
      expect(result.arms.map((a) => a.serverVersion)).toEqual([
        'postgres (PostgreSQL) 18.6',
        'postgres (PostgreSQL) 18.6',
      ]);
      expect(result.arms.map((a) => a.build?.sha)).toEqual([pg18.baseSha, pg18.headSha]);
      expect(processesMentioning(tmp)).toEqual([]);

      // Again: both are cache hits, said as such, in well under the 15 s target.
      const again = memoryLogger();
      const t0 = Date.now();
      const second = await buildComparison(pg18Comparison('base', 'head'), deps(again));
      expect(Date.now() - t0).toBeLessThan(15_000);
      expect([second.base.record.cacheHit, second.head.record.cacheHit]).toEqual([true, true]);
      expect(second.head.installDir).toBe(head.installDir);
      expect(
        again.lines.filter((l) =>
          /^build (base|head): cache hit \(sha [0-9a-f]{7}, meson\) in [\d.]+ s/.test(l),
        ),
      ).toHaveLength(2);
      await expectNothingHalfCached();
    },
    BUILD_TIMEOUT_MS,
  );

  it(
    '--merge-base builds the common ancestor and records why',
    async () => {
      const logger = memoryLogger();
      // head is a child of base, so their merge-base is base: a cache hit from the test above.
      const { base } = await buildComparison(
        pg18Comparison('head', 'base', { mergeBase: true }),
        deps(logger),
      );
      expect(base.record.sha).toBe(pg18.baseSha);
      expect(base.record.baseChosenBy).toBe('merge-base of head and base');
      expect(logger.lines).toContain(`base: merge-base of head and base is ${pg18.baseSha.slice(0, 7)}`);
    },
    BUILD_TIMEOUT_MS,
  );

  it(
    'a head-only request (stored baseline) builds and returns head alone; base is not even resolved',
    async () => {
      const logger = memoryLogger();
      const arms = await buildArms(
        {
          repo: parseRepo(pg18.dir, process.cwd()),
          baseRef: 'no-such-ref', // would fail if base were resolved
          headRef: 'head',
          mergeBase: false,
          basePatches: [],
          headPatches: [],
          extraOptions: [],
          cacheDir,
          headOnly: true,
        },
        deps(logger),
      );
      expect(arms.map((a) => a.label)).toEqual(['head']);
      expect(arms[0]!.build).toMatchObject({ sha: pg18.headSha });
      expect(logger.lines.join('\n')).not.toMatch(/no-such-ref|build base/);
    },
    BUILD_TIMEOUT_MS,
  );

  it(
    'applies a mail-format series with git am and a plain diff with git apply, in order',
    async () => {
      const mail = path.join(tmp, '0001-head.patch');
      const plain = path.join(tmp, 'comment.diff');
      await writeFile(
        mail,
        execFileSync('git', ['-C', pg18.dir, 'format-patch', '--stdout', 'base..head'], { encoding: 'utf8' }),
      );
      await writeFile(
        plain,
        'diff --git a/src/backend/utils/adt/float.c b/src/backend/utils/adt/float.c\n' +
          '--- a/src/backend/utils/adt/float.c\n+++ b/src/backend/utils/adt/float.c\n' +
          '@@ -1,3 +1,4 @@\n+/* pgperf test: a plain diff */\n /*-------------------------------------------------------------------------\n  *\n  * float.c\n',
      );
      const logger = memoryLogger();
      const built = await buildPostgres(
        request(pg18, { label: 'patched', patches: await readPatches([mail, plain], '--patch') }),
        deps(logger),
      );
      expect(built.record.patches.map((p) => [path.basename(p.file), p.sha256.length])).toEqual([
        ['0001-head.patch', 64],
        ['comment.diff', 64],
      ]);
      expect(built.record.sha).toBe(pg18.baseSha);
      if (!built.record.cacheHit) {
        expect(logger.lines).toEqual(
          expect.arrayContaining([
            `build patched: applying ${mail} (git am)`,
            `build patched: applying ${plain} (git apply)`,
          ]),
        );
      }
      // Same commit, different patches: its own install.
      const plainBase = await buildPostgres(request(pg18), deps());
      expect(built.installDir).not.toBe(plainBase.installDir);
    },
    BUILD_TIMEOUT_MS,
  );

  it(
    'CLI: `pgperf build` prints the install path; `pgperf run --base --head` builds and benchmarks',
    async () => {
      const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
      const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      let code: number;
      let runCode: number;
      let prefixCode: number;
      let stdout = '';
      let stderr = '';
      const customPrefix = path.join(cacheDir, 'custom-prefix');
      try {
        code = await main(['build', '--repo', pg18.dir, '--ref', 'head', '--cache-dir', cacheDir]);
        // A prefix of the user's choosing (fixed, so that a warm machine finds it built).
        prefixCode = await main([
          'build',
          '--repo',
          pg18.dir,
          '--ref',
          'head',
          '--cache-dir',
          cacheDir,
          '--prefix',
          customPrefix,
        ]);
        const workload = path.join(tmp, 'tiny.yml');
        await writeFile(
          workload,
          'name: tiny\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 1\n',
        );
        await chmod(workload, 0o644);
        runCode = await main([
          'run',
          '--repo',
          pg18.dir,
          '--base',
          'base',
          '--head',
          'head',
          '--workload',
          workload,
          '--cache-dir',
          cacheDir,
          '--out',
          path.join(tmp, 'cli-run'),
          '--tmp-dir',
          tmp,
          '--seed',
          '5',
          '--force', // one round: refused as unable to reach significance unless forced
          '--no-instructions', // what this test asks of the build; counting by default: instructions.int
        ]);
      } finally {
        stdout = out.mock.calls.map((c) => String(c[0])).join('');
        stderr = err.mock.calls.map((c) => String(c[0])).join('');
        out.mockRestore(); // also forgets the calls
        err.mockRestore();
      }
      expect(code, stderr).toBe(0);
      expect(stdout.split('\n')[0]).toMatch(
        new RegExp(`^${layout.installs}/${pg18.headSha.slice(0, 12)}-[0-9a-f]{16}$`),
      );
      expect(stderr).toMatch(/build head: cache hit \(sha [0-9a-f]{7}, meson\)/);
      expect(prefixCode, stderr).toBe(0);
      expect(stdout.split('\n')[1]).toBe(customPrefix);
      expect(
        execFileSync(path.join(customPrefix, 'bin', 'postgres'), ['--version'], { encoding: 'utf8' }),
      ).toMatch(/18\.6/);
      // Configured for that prefix: its binaries find their libraries there (rpath), not in the cache.
      expect(
        execFileSync(path.join(customPrefix, 'bin', 'pg_config'), ['--libdir'], { encoding: 'utf8' }).trim(),
      ).toBe(path.join(customPrefix, 'lib'));

      expect(runCode, stderr).toBe(0);
      const runDir = (await readdir(path.join(tmp, 'cli-run')))[0]!;
      const result = JSON.parse(
        await readFile(path.join(tmp, 'cli-run', runDir, 'results.json'), 'utf8'),
      ) as RunResult;
      expect(result.arms.map((a) => [a.label, a.build?.sha, a.build?.cacheHit])).toEqual([
        ['base', pg18.baseSha, true],
        ['head', pg18.headSha, true],
      ]);
      expect(result.arms[0]!.build).toMatchObject({ baseChosenBy: 'explicit ref', buildSystem: 'meson' });
      expect(stderr).toContain('== Building PostgreSQL');
    },
    BUILD_TIMEOUT_MS,
  );
});

describe('building PostgreSQL 15 (autoconf)', () => {
  it(
    'builds with ./configure and make, pinned the same way, and runs',
    async () => {
      const pg15 = await preparePgSourceRepo({ major: 15, dir: path.join(cacheDir, 'repos', 'pg15') });
      const built = await buildPostgres(request(pg15, { label: 'pg15' }), deps());
      expect(built.record).toMatchObject({
        sha: pg15.baseSha,
        buildSystem: 'autoconf',
        serverVersion: 'postgres (PostgreSQL) 15.18',
        cc: 'ccache gcc',
      });
      expect(built.record.options).toEqual(
        expect.arrayContaining(['--disable-cassert', '--disable-debug', '--with-icu', '--without-llvm']),
      );
      const configured = execFileSync(path.join(built.binDir, 'pg_config'), ['--configure'], {
        encoding: 'utf8',
      });
      expect(configured).toContain('--with-icu');
      expect(configured).not.toContain('--enable-cassert');
      expect(built.record.cflags).toMatch(/-O2/);
      expect(built.record.cflags).not.toMatch(/(^| )-g( |$)/);

      const result = await runBenchmark(
        {
          arms: [{ label: 'pg15', binDir: built.binDir, settings: {}, build: { ...built.record } }],
          workloads: [tiny],
          order: 'random',
          seed: 3,
          sink: fileSink(path.join(tmp, 'run15', 'results.json')),
          analysis: resolveAnalysis(),
          dataChecksums: false,
          tmpDir: tmp,
        },
        { runner: nodeProcessRunner, logger: memoryLogger() },
      );
      expect(result.samples.map((s) => s.status)).toEqual(['ok']);
    },
    BUILD_TIMEOUT_MS,
  );
});

describe('bad input: clear errors, nothing half-cached, nothing left running', () => {
  afterAll(async () => {
    await expectNothingHalfCached();
  });

  it('an unknown ref', async () => {
    await expect(buildPostgres(request(pg18, { ref: 'no-such-branch' }), deps())).rejects.toThrow(
      `unknown ref 'no-such-branch' in ${pg18.dir}: no branch or tag of that name there. Give a branch, a tag or a full 40-character commit sha.`,
    );
    await expect(buildPostgres(request(pg18, { ref: 'f'.repeat(40) }), deps())).rejects.toThrow(
      /fetch failed: unknown ref: fffffff is not a commit of/,
    );
  });

  it('an unreachable repository: a missing local path, a file:// URL to nothing', async () => {
    await expect(
      buildPostgres({ ...request(pg18), repo: parseRepo('/nonexistent/postgres', '/') }, deps()),
    ).rejects.toThrow(
      '--repo /nonexistent/postgres: no such directory (/nonexistent/postgres); give a git URL or the path of a local clone',
    );
    await expect(
      buildPostgres({ ...request(pg18), repo: parseRepo('file:///nonexistent/postgres.git', '/') }, deps()),
    ).rejects.toThrow('--repo file:///nonexistent/postgres.git: no such directory');
  });

  it('a patch that does not apply names the patch and the failing file', async () => {
    const bad = path.join(tmp, 'stale.patch');
    await writeFile(
      bad,
      `diff --git a/${CHANGED_FILE} b/${CHANGED_FILE}\n--- a/${CHANGED_FILE}\n+++ b/${CHANGED_FILE}\n` +
        '@@ -1,2 +1,2 @@\n-this line is not there\n+neither is this\n context\n',
    );
    const error = await buildPostgres(
      request(pg18, { label: 'head', patches: await readPatches([bad], '--head-patch') }),
      deps(),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BuildStepError);
    expect((error as BuildStepError).step).toBe('patch');
    expect((error as Error).message).toContain(
      `build head: patch failed: patch ${bad} does not apply (failing: ${CHANGED_FILE})`,
    );
    await expect(readPatches([path.join(tmp, 'missing.patch')], '--head-patch')).rejects.toThrow(
      `--head-patch ${path.join(tmp, 'missing.patch')}: cannot read it (ENOENT)`,
    );

    // Two builds of the same key at once: the second waits for the first's lock, then does its own
    // attempt in a clean slot; both fail the same clear way.
    const logger = memoryLogger();
    const twice = await Promise.allSettled(
      [1, 2].map(async () =>
        buildPostgres(
          request(pg18, { label: 'head', patches: await readPatches([bad], '--head-patch') }),
          deps(logger),
        ),
      ),
    );
    for (const outcome of twice) {
      expect(outcome.status).toBe('rejected');
      expect(String((outcome as PromiseRejectedResult).reason)).toContain(`patch ${bad} does not apply`);
    }
    expect(
      logger.lines.filter((l) => /^waiting for another build of [0-9a-f]{7} \(head\): locked by pid/.test(l)),
    ).toHaveLength(1);
    // Once it holds the lock, it says whom it waited for, and that it builds since nothing was left.
    expect(
      logger.lines.filter((l) =>
        /^build head: waited \S+ for pid \d+ on .* to finish; it left no install: building$/.test(l),
      ),
    ).toHaveLength(1);
  });

  it('a missing build dependency names the Debian package', async () => {
    // A PATH with everything in /usr/bin except bison and meson.
    const bin = path.join(tmp, 'bin-without-bison');
    await mkdir(bin);
    for (const name of await readdir('/usr/bin')) {
      if (name !== 'bison' && name !== 'meson')
        await symlink(path.join('/usr/bin', name), path.join(bin, name));
    }
    const error = await buildPostgres(
      // An option no other test builds with: this key is never in the cache, so the build really starts.
      request(pg18, { label: 'head', extraOptions: ['-Dpgport=5499'] }),
      deps(memoryLogger(), { ...process.env, PATH: bin }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BuildStepError);
    expect((error as BuildStepError).step).toBe('configure');
    expect((error as Error).message).toContain(
      'build head: configure failed: missing build dependencies: program bison (Debian package bison), program meson (Debian package meson). ' +
        'Install them with: apt-get install bison meson',
    );
  });

  it('too little disk space', async () => {
    await expect(
      buildPostgres(request(pg18, { extraOptions: ['-Dpgport=5498'] }), {
        ...deps(),
        minFreeBytes: Number.MAX_SAFE_INTEGER,
      }),
    ).rejects.toThrow(/^not enough disk space for a build in .*: [\d.]+ GiB free, a build needs about/);
  });
});
