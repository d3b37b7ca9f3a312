/**
 * `runNightly` with a backfill on the machine's PostgreSQL: the commits of a small real git repository
 * "built" by an injected build that returns the Debian install for every commit (building PostgreSQL per
 * commit is too slow for CI), measured through the real pipeline into a directory store. Every commit
 * then runs the same compiled code, which the real comparison (compiled-code.ts) finds: the oldest commit
 * is measured, the next skipped as its parent's code, then the head measured as usual. Two short runs.
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import { runNightly } from '../../src/flows/nightly/nightly-flow.js';
import { runPipeline } from '../../src/flows/compare/pipeline/pipeline.js';
import { openStore } from '../../src/store/open/open-store.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { useTmpDir } from '../helpers/tmp-dir.js';
import { TEST_GIT_ENV, gitIn } from '../helpers/git.js';
import { masterBuild } from '../helpers/master-build.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';

const WORKLOAD =
  'name: tiny\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 1\nrounds: 1\n';
const tmp = useTmpDir('pgperf-it-backfill-');

describe('nightly --backfill', () => {
  it('measures the oldest commit, skips its same-code successor, then the head; each stored as its commit', async () => {
    const repo = path.join(tmp(), 'pg');
    execFileSync('git', ['init', '-q', '-b', 'master', repo], { env: TEST_GIT_ENV });
    const git = gitIn(repo);
    const shas: string[] = [];
    for (const [i, date] of [
      '2026-03-01T10:00:00Z',
      '2026-03-02T10:00:00Z',
      '2026-03-03T10:00:00Z',
    ].entries()) {
      await writeFile(path.join(repo, 'README'), `commit ${i}\n`);
      git('add', '.');
      execFileSync('git', ['-C', repo, 'commit', '-q', '-m', `commit ${i}`], {
        env: { ...TEST_GIT_ENV, GIT_COMMITTER_DATE: date },
      });
      shas.push(git('rev-parse', 'HEAD'));
    }
    const binDir = installedBinDir();
    const logger = memoryLogger();
    const store = await openStore(path.join(tmp(), 'store'), { home: tmp(), warn: () => {}, write: true });
    try {
      const outcome = await runNightly(
        {
          head: {
            kind: 'build',
            request: {
              ...masterBuild(repo, tmp(), 'cache'),
            },
          },
          source: { head: { ref: 'master', chosenBy: 'nightly build of master' } },
          workloads: [parseWorkload(WORKLOAD, 'tiny.yml')],
          tmpDir: tmp(),
          history: { minMagnitude: 0.02 },
          backfill: 2,
        },
        {
          logger,
          history: store,
          // Every commit "built" as the machine's install, its build record naming the commit.
          build: async (req) => {
            const sha = git('rev-parse', req.headRef);
            return [
              {
                label: 'head',
                binDir,
                settings: {},
                build: { repo, ref: req.headRef, sha, options: [], cacheHit: true } as never,
              },
            ];
          },
          backfill: { runner: nodeProcessRunner },
          measure: (request) =>
            runPipeline(
              { ...request, runDir: path.join(tmp(), `run-${Date.now()}`) },
              { runner: nodeProcessRunner, logger },
              store,
            ),
        },
      );
      const text = logger.lines.join('\n');
      expect(outcome.incomplete, text).toBeUndefined();
      expect(outcome.backfill).toEqual({
        measured: [shas[0]],
        skipped: [{ sha: shas[1], why: 'the same compiled code as its parent' }],
      });
      expect(text).toMatch(/backfill 2\/2: [0-9a-f]{7} \(commit 1\) — same code as parent, skipped/);
      const stored = await store.list();
      // Newest first: tonight's head, then the backfilled oldest commit with its commit date.
      expect(stored.map((r) => r.commits[0]!.sha)).toEqual([shas[2], shas[0]]);
      const first = await store.load(stored[1]!.id);
      expect(first.source?.head).toEqual({
        ref: 'master',
        sha: shas[0],
        committedAt: '2026-03-01T10:00:00+00:00',
        chosenBy: `nightly backfill 1/2 before ${shas[2]!.slice(0, 7)}`,
      });
      // The history orders the two points by run date, which follows commit order.
      const series = outcome.analysis!.series.find((s) => s.series.key.metric === 'tps')!;
      expect(series.series.points.map((p) => p.sha)).toEqual([shas[0], shas[2]]);
    } finally {
      await store.close();
    }
    expect(processesMentioning(tmp())).toEqual([]);
  }, 300_000);
});
