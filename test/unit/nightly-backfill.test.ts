/**
 * The nightly backfill (src/flows/nightly/backfill.ts): which commits it measures (read from a real git
 * repository through the build cache's shallow mirror: the first-parent line oldest first, a merge as one
 * commit of it, a history shorter than asked, a cut at the newest stored commit), its bounds as the CLI and
 * the Action take them, and its loop with injected builds and runs (same-code skips, order, progress, an
 * interrupt that keeps what was stored).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceMirror, parseRepo } from '../../src/postgres/builds/source.js';
import { cacheLayout } from '../../src/postgres/builds/cache.js';
import { checkBackfill, runBackfill, selectBackfill, timeLeft } from '../../src/flows/nightly/backfill.js';
import type { BackfillDeps, BackfillRequest } from '../../src/flows/nightly/backfill.js';
import { parseInputs } from '../../src/adapters/action/inputs.js';
import { nightlyCommand } from '../../src/adapters/cli/commands/nightly.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { short } from '../../src/core/util/commit-id.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import type { PipelineOutcome } from '../../src/flows/compare/pipeline/pipeline.js';
import type { ResultStore, StoredRun } from '../../src/store/store.js';
import type { ArmSpec } from '../../src/run/run-loop.js';
import { TEST_GIT_ENV, gitIn } from '../helpers/git.js';
import { masterBuild } from '../helpers/master-build.js';

let tmp: string;
let repo: string;
/** master's first-parent line, oldest first: c1 c2 c3 M(merge of side: s1 s2) c4 c5. */
const line: Record<string, string> = {};
let side: string[] = [];

function commit(dir: string, name: string, date: string): string {
  const git = gitIn(dir);
  execFileSync('sh', ['-c', `echo ${name} > ${name}.txt`], { cwd: dir });
  git('add', '.');
  execFileSync('git', ['-C', dir, 'commit', '-q', '-m', `subject of ${name}`], {
    env: { ...TEST_GIT_ENV, GIT_COMMITTER_DATE: date, GIT_AUTHOR_DATE: date },
  });
  return git('rev-parse', 'HEAD');
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-backfill-'));
  repo = path.join(tmp, 'pg');
  execFileSync('git', ['init', '-q', '-b', 'master', repo], { env: TEST_GIT_ENV });
  const git = gitIn(repo);
  line.c1 = commit(repo, 'c1', '2026-01-01T00:00:00Z');
  line.c2 = commit(repo, 'c2', '2026-01-02T00:00:00Z');
  git('checkout', '-q', '-b', 'side');
  side = [commit(repo, 's1', '2026-01-03T00:00:00Z'), commit(repo, 's2', '2026-01-04T00:00:00Z')];
  git('checkout', '-q', 'master');
  line.c3 = commit(repo, 'c3', '2026-01-05T00:00:00Z');
  execFileSync('git', ['-C', repo, 'merge', '-q', '--no-ff', '-m', 'subject of M', 'side'], {
    env: { ...TEST_GIT_ENV, GIT_COMMITTER_DATE: '2026-01-06T00:00:00Z' },
  });
  line.M = git('rev-parse', 'HEAD');
  line.c4 = commit(repo, 'c4', '2026-01-07T00:00:00Z');
  line.c5 = commit(repo, 'c5', '2026-01-08T00:00:00Z');
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** A fresh shallow mirror of the test repository in its own build cache (as a build would use it). */
function mirror(cache: string, logger = memoryLogger()): SourceMirror {
  const layout = cacheLayout(cache);
  return new SourceMirror(parseRepo(repo, tmp), layout.git, layout.locks, {
    runner: nodeProcessRunner,
    logger,
    env: TEST_GIT_ENV,
  });
}

describe('backfill commit selection (a real repository, read through a shallow mirror)', () => {
  it('the N commits before the head on its first-parent line, oldest first, a merge as one commit', async () => {
    const logger = memoryLogger();
    const m = mirror(path.join(tmp, 'cache-a'), logger);
    const head = await m.resolve('master');
    expect(head).toBe(line.c5);
    const s = await selectBackfill(m, head, 3);
    expect(s.commits.map((c) => c.sha)).toEqual([line.c3, line.M, line.c4]);
    expect(s.commits.map((c) => c.subject)).toEqual(['subject of c3', 'subject of M', 'subject of c4']);
    expect(s.commits[1]!.parents).toEqual([line.c3, side[1]]);
    expect(s.commits[0]!.committedAt).toBe('2026-01-05T00:00:00+00:00');
    expect(s.shortHistory).toBe(false);
    // The mirror fetched the head alone (depth 1), then deepened it to read the line.
    expect(logger.lines.join('\n')).toMatch(/history of [0-9a-f]+: fetching more \(--deepen=4\)/);
  });

  it('N larger than the history: every commit before the head, the merged branch never walked', async () => {
    const m = mirror(path.join(tmp, 'cache-b'));
    const s = await selectBackfill(m, line.c5!, 50);
    expect(s.commits.map((c) => c.sha)).toEqual([line.c1, line.c2, line.c3, line.M, line.c4]);
    expect(s.commits.map((c) => c.sha)).not.toContain(side[0]);
    expect(s.shortHistory).toBe(true);
  });

  it('stops at the newest commit the store already holds (it and older are not measured again)', async () => {
    const m = mirror(path.join(tmp, 'cache-c'));
    const s = await selectBackfill(m, line.c5!, 5, new Set([line.c2!, line.c3!]));
    expect(s.commits.map((c) => c.sha)).toEqual([line.M, line.c4]);
    expect(s.storedAt?.sha).toBe(line.c3);
  });
});

describe('backfill bounds', () => {
  it.each([0, 101, 2.5])('%s commits are refused naming the flag and the range', (n) => {
    expect(() => checkBackfill(n, { installed: false }, { backfill: '--backfill', bin: '--bin' })).toThrow(
      `--backfill must be a whole number from 1 to 100 (commits before the head), got '${n}'`,
    );
  });

  it('an installed head cannot be backfilled: there is nothing to build the commits before it from', () => {
    expect(() =>
      checkBackfill(3, { installed: true }, { backfill: "input 'backfill'", bin: "input 'head-bin-dir'" }),
    ).toThrow(/input 'backfill' 3 builds the commits before the head from source, but input 'head-bin-dir'/);
    expect(() => checkBackfill(100, { installed: false }, { backfill: 'b', bin: 'i' })).not.toThrow();
  });

  it('the CLI refuses --backfill outside 1..100 as it parses the flag', async () => {
    for (const bad of ['0', '101', 'x']) {
      const cmd = nightlyCommand()
        .exitOverride()
        .configureOutput({ writeErr: () => {}, writeOut: () => {} });
      await expect(
        cmd.parseAsync(['--backfill', bad, '--workload', 'smoke'], { from: 'user' }),
      ).rejects.toThrow(/--backfill must be a (positive integer|whole number from 1 to 100), got/);
    }
  });

  const action = parse(readFileSync(new URL('../../action.yml', import.meta.url), 'utf8')) as {
    inputs: Record<string, { default?: string }>;
  };
  const inputs = (overrides: Record<string, string>) => {
    const values: Record<string, string> = {
      ...Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, v.default ?? ''])),
      'github-token': 'token',
      ...overrides,
    };
    return (name: string) => values[name] ?? '';
  };

  it('the Action reads backfill in mode nightly only, within 1..100, and not with head-bin-dir', () => {
    const nightly = { mode: 'nightly', store: 'store', 'head-ref': 'master' };
    expect(parseInputs(inputs({ ...nightly, backfill: '10' })).backfill).toBe(10);
    expect(() => parseInputs(inputs({ ...nightly, backfill: '101' }))).toThrow(
      "input 'backfill' must be a whole number between 1 and 100, got '101'",
    );
    expect(() => parseInputs(inputs({ ...nightly, backfill: '0' }))).toThrow(/between 1 and 100, got '0'/);
    expect(() => parseInputs(inputs({ ...nightly, backfill: '3', 'head-bin-dir': '/x/bin' }))).toThrow(
      /input 'backfill' 3 builds the commits before the head from source, but input 'head-bin-dir'/,
    );
    expect(() => parseInputs(inputs({ backfill: '3' }))).toThrow(
      "input 'backfill' (3) measures the commits before the head of mode nightly; mode benchmark does not read it: remove it",
    );
  });
});

/** A build that "installs" each commit into a directory named for it (the loop never runs the install). */
const fakeBuild: BackfillDeps['build'] = async (req) => {
  const sha = gitIn(repo)('rev-parse', req.headRef);
  return [{ label: 'head', binDir: `/installs/${sha}/bin`, settings: {}, build: fakeRecord(sha) }];
};
function fakeRecord(sha: string): NonNullable<ArmSpec['build']> {
  return { repo: repo, ref: sha, sha, options: [] } as unknown as NonNullable<ArmSpec['build']>;
}
const emptyStore = (stored: string[] = []): ResultStore =>
  ({
    list: async () => stored.map((sha) => ({ commits: [{ arm: 'head', sha }] }) as unknown as StoredRun),
  }) as unknown as ResultStore;

/** A backfill of the test repository's master with injected builds, runs and code comparisons. */
async function backfill(
  count: number,
  options: {
    sameAsParent?: string[];
    stopAt?: string;
    stored?: string[];
  } = {},
) {
  const logger = memoryLogger();
  const measured: Array<{ sha?: string; committedAt?: string; ref?: string; binDir: string }> = [];
  const compared: Array<[string, string]> = [];
  let clock = 0;
  const request: BackfillRequest = {
    count,
    build: masterBuild(repo, tmp, `cache-loop-${Math.random().toString(36).slice(2)}`),
    source: { repository: 'pg/pg', head: { ref: 'master', chosenBy: 'nightly build of master' } },
    runRequest: (arm, source) => ({ arm, source }) as never,
  };
  const deps: BackfillDeps = {
    logger,
    runner: nodeProcessRunner,
    env: TEST_GIT_ENV,
    build: fakeBuild,
    history: emptyStore(options.stored),
    now: () => (clock += 60_000),
    compareCode: async (parent, commit) => {
      compared.push([parent.binDir, commit.binDir]);
      const sha = commit.build!.sha;
      return {
        head: 'commit',
        identical: (options.sameAsParent ?? []).includes(sha),
        files: 1,
        differingFiles: [],
        differingCount: 0,
      };
    },
    measure: async (req) => {
      const { arm, source } = req as unknown as { arm: ArmSpec; source: { head: Record<string, string> } };
      measured.push({ ...source.head, binDir: arm.binDir });
      const status = source.head.sha === options.stopAt ? 'interrupted' : 'complete';
      return { result: { status } } as unknown as PipelineOutcome;
    },
  };
  const outcome = await runBackfill(request, deps);
  return { outcome, measured, compared, lines: logger.lines };
}

describe('the backfill loop (injected builds and runs, the real repository)', () => {
  it('measures oldest first, each as a run of its commit with its date; same-code commits are skipped', async () => {
    const { outcome, measured, compared, lines } = await backfill(4, { sameAsParent: [line.M!] });
    expect(measured.map((m) => m.sha)).toEqual([line.c2, line.c3, line.c4]);
    expect(measured[0]).toMatchObject({
      ref: 'master',
      committedAt: '2026-01-02T00:00:00+00:00',
      binDir: `/installs/${line.c2}/bin`,
    });
    // Each commit's code is compared with its first parent's build, the one built just before it.
    expect(compared).toEqual([
      [`/installs/${line.c2}/bin`, `/installs/${line.c3}/bin`],
      [`/installs/${line.c3}/bin`, `/installs/${line.M}/bin`],
      [`/installs/${line.M}/bin`, `/installs/${line.c4}/bin`],
    ]);
    expect(outcome.measured).toEqual([line.c2, line.c3, line.c4]);
    expect(outcome.skipped).toEqual([{ sha: line.M, why: 'the same compiled code as its parent' }]);
    const text = lines.join('\n');
    expect(text).toContain(`backfill: 4 commits before ${short(line.c5!)}, oldest first`);
    expect(text).toContain(`backfill 1/4: ${short(line.c2!)} (subject of c2) — building`);
    expect(text).toContain(`backfill 1/4: ${short(line.c2!)} (subject of c2) — measuring`);
    expect(text).toContain(`backfill 3/4: ${short(line.M!)} (subject of M) — same code as parent, skipped`);
    expect(text).toMatch(
      /backfill 2\/4: [0-9a-f]+ \(subject of c3\) — building; about \d+m\d+s left \(with the head\)/,
    );
  });

  it('the root commit, first of a backfill reaching it, is measured (it has no parent to compare with)', async () => {
    const { measured, compared } = await backfill(5);
    expect(measured.map((m) => m.sha)).toEqual([line.c1, line.c2, line.c3, line.M, line.c4]);
    expect(compared).toHaveLength(4);
  });

  it('an interrupted run stops the backfill; what was measured before stays measured', async () => {
    const { outcome, measured } = await backfill(3, { stopAt: line.M });
    expect(measured.map((m) => m.sha)).toEqual([line.c3, line.M]);
    expect(outcome.measured).toEqual([line.c3]);
    expect(outcome.stopped?.result.status).toBe('interrupted');
  });

  it('the commits the store holds, and older ones, are not measured again', async () => {
    const { measured, lines } = await backfill(4, { stored: [line.c3!] });
    expect(measured.map((m) => m.sha)).toEqual([line.M, line.c4]);
    expect(lines.join('\n')).toMatch(
      /stopping after [0-9a-f]+ \(subject of c3\), which the store already holds/,
    );
  });

  it('time left: the average so far times the commits left and the head', () => {
    expect(timeLeft(20 * 60_000, 2, 5)).toBe('about 40m00s left (with the head)');
  });
});

describe('runNightly with a backfill', () => {
  async function night(stopAt?: string) {
    const { runNightly } = await import('../../src/flows/nightly/nightly-flow.js');
    const { DirStore } = await import('../../src/store/dir/dir-store.js');
    const store = await DirStore.open(path.join(tmp, `store-${Math.random().toString(36).slice(2)}`), {
      write: true,
      warn: () => {},
    });
    const heads: Array<string | undefined> = [];
    const outcome = await runNightly(
      {
        head: {
          kind: 'build',
          request: masterBuild(repo, tmp, `cache-night-${Math.random().toString(36).slice(2)}`),
        },
        source: { head: { ref: 'master', chosenBy: 'nightly build of master' } },
        workloads: [],
        history: { minMagnitude: 0.02 },
        backfill: 2,
      },
      {
        logger: memoryLogger(),
        history: store,
        build: (req) => fakeBuild(req),
        backfill: { runner: nodeProcessRunner, compareCode: async () => ({ identical: false }) as never },
        measure: async (req) => {
          const sha = req.source?.head?.sha;
          heads.push(sha);
          const status = sha === stopAt ? 'interrupted' : 'complete';
          return {
            result: { status, startedAt: new Date().toISOString(), source: req.source },
          } as unknown as PipelineOutcome;
        },
      },
    );
    await store.close();
    return { outcome, heads };
  }

  it('measures the commits before the head, oldest first, then the head', async () => {
    const { outcome, heads } = await night();
    expect(heads).toEqual([line.M, line.c4, line.c5]);
    expect(outcome.backfill?.measured).toEqual([line.M, line.c4]);
    expect(outcome.incomplete).toBeUndefined();
  });

  it('an interrupted backfill ends the night without measuring the head, saying what was kept', async () => {
    const { outcome, heads } = await night(line.c4);
    expect(heads).toEqual([line.M, line.c4]);
    expect(outcome.incomplete).toBe(
      "the backfill stopped ('interrupted'): the 1 commit(s) measured before are stored; tonight's head was not measured",
    );
  });
});
