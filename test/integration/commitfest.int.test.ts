/**
 * Commitfest entries on real PostgreSQL source, without GitHub: a local repository stands in for cfbot's
 * mirror, made from the build tests' PostgreSQL 18.6 repository (testkit/pg-source.ts). Its `cf/4711` is the
 * fixture's head commit (18.6 plus a change to one .c file, as cfbot would have applied the entry's patch to
 * master back then) and `master` has moved on by one commit since, so the merge-base is not master's tip.
 * `pgperf run --cf 4711 --repo <it>` (the CLI from source) builds the merge-base as base and cf/4711 as head
 * (both from the build cache after the build tests: the cache key is the commit, and these are the
 * fixture's commits), measures a tiny select-only workload and records the entry: in results.json, in the
 * stored run, and on the report's compared line. Then a mailbox as a reviewer saves it from the list (a
 * cover letter, the patch made by `git format-patch` from the same real commit, a reply) is applied to 18.6
 * the way `--head-patch` applies it: the cover letter and the reply are skipped, the patch becomes a commit.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  preparePgSourceRepo,
  testCacheDir,
  CHANGED_FILE,
  type PgSourceRepo,
} from '../../testkit/pg-source.js';
import { applyPatches, readPatches } from '../../src/postgres/builds/patches.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { onlyResults, runCli } from '../helpers/cli.js';
import { writeWorkloadFile } from '../helpers/workload-file.js';

const BUILD_TIMEOUT_MS = 40 * 60_000;
const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'cfbot',
  GIT_AUTHOR_EMAIL: 'cfbot@example.org',
  GIT_COMMITTER_NAME: 'cfbot',
  GIT_COMMITTER_EMAIL: 'cfbot@example.org',
  GIT_AUTHOR_DATE: '2025-02-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2025-02-01T00:00:00Z',
};
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, ...args], { env: GIT_ENV, encoding: 'utf8' }).trim();

let pg18: PgSourceRepo;
let tmp: string;
/** The stand-in for cfbot's mirror: a bare repository borrowing the fixture's objects. */
let cfbot: string;
let masterSha: string;

beforeAll(async () => {
  pg18 = await preparePgSourceRepo({ major: 18, dir: path.join(testCacheDir(), 'repos', 'pg18') });
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-cf-'));
  await chmod(tmp, 0o755);
  cfbot = path.join(tmp, 'cfbot.git');
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=master', cfbot], { env: GIT_ENV });
  await writeFile(
    path.join(cfbot, 'objects', 'info', 'alternates'),
    `${path.join(pg18.dir, '.git', 'objects')}\n`,
  );
  // master moved on after the entry's patch set was applied: one more commit on top of 18.6.
  masterSha = git(
    cfbot,
    'commit-tree',
    `${pg18.baseSha}^{tree}`,
    '-p',
    pg18.baseSha,
    '-m',
    'master moves on',
  );
  git(cfbot, 'update-ref', 'refs/heads/master', masterSha);
  git(cfbot, 'update-ref', 'refs/heads/cf/4711', pg18.headSha);
});

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('commitfest entries on real PostgreSQL source', () => {
  it(
    'pgperf run --cf 4711: head cf/4711, base its merge-base with master, the entry recorded and named',
    async () => {
      const out = path.join(tmp, 'out');
      const store = path.join(tmp, 'store');
      // Timed at 2 clients: at the 1 client of the counted runs, the head's uncalled function would be
      // decided without timed rounds (changed code not executed), and the store keeps runs with samples.
      const workload = await writeWorkloadFile(
        tmp,
        'select-only.yml',
        'name: select-only\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [2]\nduration: 1\nwarmup: 0\nrounds: 2\n',
      );
      const ran = await runCli(
        [
          'run',
          '--cf',
          '4711',
          '--repo',
          cfbot,
          '--cache-dir',
          testCacheDir(),
          '--workload',
          workload,
          '--force',
          '--out',
          out,
          '--tmp-dir',
          tmp,
          '--store',
          store,
        ],
        { source: true },
      );
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stderr).toContain(`base: merge-base of master and cf/4711 is ${pg18.baseSha.slice(0, 7)}`);
      expect(ran.stdout.split('\n')[1]).toMatch(
        /^compared: 'head', commitfest entry 4711 \(cf\/4711\), vs base 'base' \(TPS, higher is better; instr\/tx, lower is better\)$/,
      );

      const result = await onlyResults(out);
      expect(result.source).toEqual({ commitfest: { id: 4711, branch: 'cf/4711' } });
      const [base, head] = result.arms;
      expect(base!.build).toMatchObject({
        sha: pg18.baseSha,
        baseChosenBy: 'merge-base of master and cf/4711',
      });
      expect(base!.build!.sha).not.toBe(masterSha);
      expect(head!.build).toMatchObject({ sha: pg18.headSha });
      expect(result.samples.length).toBeGreaterThan(0);

      // The store keeps the entry with the run.
      const runs = await readdir(path.join(store, 'runs'));
      expect(runs).toHaveLength(1);
      const stored = JSON.parse(await readFile(path.join(store, 'runs', runs[0]!), 'utf8')) as RunResult;
      expect(stored.source?.commitfest).toEqual({ id: 4711, branch: 'cf/4711' });
    },
    BUILD_TIMEOUT_MS,
  );

  it('a mailbox saved from the list applies as --head-patch applies it: cover letter and reply skipped', async () => {
    const series = git(pg18.dir, 'format-patch', '--stdout', '--cover-letter', '--thread', 'base..head');
    const reply =
      'From reviewer@example.org Sat Feb  1 12:00:00 2025\n' +
      'From: A Reviewer <reviewer@example.org>\n' +
      'Subject: Re: [PATCH 1/1] head: change src/backend/utils/adt/int.c (variant 1)\n' +
      'Message-ID: <reply-1@example.org>\n\n' +
      'Looks good to me; measured it with pgperf.\n';
    const mbox = path.join(tmp, 'v1-series.mbox');
    await writeFile(mbox, `${series}\n\n${reply}`);
    expect(series).toMatch(/^Subject: \[PATCH 0\/1\]/m);

    const checkout = path.join(tmp, 'checkout');
    execFileSync('git', ['clone', '--quiet', '--shared', '--branch', 'base', pg18.dir, checkout], {
      env: GIT_ENV,
    });
    const logger = memoryLogger();
    await applyPatches(checkout, await readPatches([mbox], '--head-patch'), 'build head', {
      runner: nodeProcessRunner,
      logger,
      env: GIT_ENV,
    });
    expect(logger.lines).toEqual(
      expect.arrayContaining([
        `build head: applying ${mbox} (git am)`,
        `build head: ${mbox}: skipped 2 message(s) without a diff`,
      ]),
    );
    expect(git(checkout, 'log', '--format=%s', '-1')).toBe(
      'head: change src/backend/utils/adt/int.c (variant 1)',
    );
    expect(git(checkout, 'rev-parse', 'HEAD^')).toBe(pg18.baseSha);
    expect(git(checkout, 'diff', '--stat', 'HEAD', pg18.headSha)).toBe('');
    expect(await readFile(path.join(checkout, CHANGED_FILE), 'utf8')).toContain('pgperf_fixture_variant');

    // A mailbox of messages without any patch is refused, not built as base.
    const empty = path.join(tmp, 'thread-only.mbox');
    await writeFile(empty, reply);
    git(checkout, 'reset', '--quiet', '--hard', pg18.baseSha);
    await expect(
      applyPatches(checkout, await readPatches([empty], '--head-patch'), 'build head', {
        runner: nodeProcessRunner,
        logger,
        env: GIT_ENV,
      }),
    ).rejects.toThrow(`build head: ${empty} holds no patch: its 1 message(s) have no diff`);
  }, 120_000);
});
