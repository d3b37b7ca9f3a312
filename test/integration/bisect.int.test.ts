/**
 * `pgperf bisect` end to end on real PostgreSQL 18 source (Debian's tarball as a local git repository,
 * testkit/pg-source.ts) with five commits of our own on top, one of which sleeps 50 ms in every
 * ExecutorRun (test/helpers/bisect-series.ts): every commit the search asks for is built (release build,
 * the fixed test cache and ccache) and A/B-tested against good with real pgbench; the bisection must name
 * the slow commit. (Stopping on a commit that stays inconclusive depends on the machine's noise with real
 * servers; test/unit/bisect/bisection.test.ts covers it with seeded A/B tests.) A warm cache finds
 * the installs of the last run (about 5 minutes for the file on a loaded 2-core machine); a cold one also
 * builds the three commits the search measures (ccache hits, about 4.5 minutes each there).
 */
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BisectReport } from '../../src/core/history/bisect-report.js';
import { short } from '../../src/core/util/commit-id.js';
import { runMain } from '../helpers/main-in-process.js';
import { renderBisectText } from '../../src/core/report/bisect/bisect-text.js';
import { prepareBisectSeries, SLOW_COMMIT_INDEX, type BisectSeries } from '../helpers/bisect-series.js';
import { testCacheDir } from '../../testkit/pg-source.js';
import { DirStore } from '../../src/store/dir/dir-store.js';

const cacheDir = testCacheDir();
let series: BisectSeries;
let tmp: string;
let workload: string;

beforeAll(async () => {
  await mkdir(cacheDir, { recursive: true, mode: 0o755 });
  await chmod(cacheDir, 0o755); // PostgreSQL runs as an unprivileged user and executes the installs
  series = await prepareBisectSeries(path.join(cacheDir, 'repos', 'pg18-bisect'));
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-bisect-'));
  await chmod(tmp, 0o755);
  // Each transaction sleeps 10 ms in the server: throughput hardly depends on how busy the CPUs are, so
  // commits with the same code come out no-change even on a loaded 2-core machine (select-only there swings
  // between 2k and 15k tps from run to run), and the slow commit's 50 ms per statement is unmistakable.
  const script = path.join(tmp, 'sleepy.sql');
  await writeFile(script, 'SELECT pg_sleep(0.01);\n');
  workload = path.join(tmp, 'sleepy.yml');
  await writeFile(
    workload,
    'name: sleepy\ntool: pgbench\nscripts: [{ file: sleepy.sql }]\nscale: 1\nclients: [1]\nduration: 2\nwarmup: 0\nrounds: 6\n',
  );
  for (const f of [script, workload]) await chmod(f, 0o644);
}, 600_000);
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const pgperf = runMain;

const common = () => ['--repo', series.repo.dir, '--cache-dir', cacheDir, '--workload', workload];
/** Every case but the first (which saves to a store of its own) leaves the stores alone. */
const noStore = ['--no-store'];

describe('pgperf bisect on real PostgreSQL source', () => {
  it(
    'names the commit that slowed every statement down, with its delta, the commits tested and the cost',
    async () => {
      const ran = await pgperf([
        'bisect',
        ...common(),
        '--good',
        series.shas[0]!,
        '--bad',
        series.branch,
        // ~10 ms per transaction becomes ~60 ms: about -80%, far beyond the threshold and the noise.
        '--threshold',
        '40',
        '--out',
        path.join(tmp, 'out'),
        '--tmp-dir',
        tmp,
        '--store',
        path.join(tmp, 'store'),
        '--json',
      ]);
      if (ran.code !== 0) console.error(ran.stderr.slice(-4000));
      expect(ran.code).toBe(0);
      const report = JSON.parse(ran.stdout) as BisectReport;
      const slow = series.shas[SLOW_COMMIT_INDEX]!;
      expect(report.outcome.kind).toBe('found');
      if (report.outcome.kind !== 'found') return;
      expect(report.outcome.firstBad).toEqual({ sha: slow, subject: series.subjects[SLOW_COMMIT_INDEX] });
      expect(report.outcome.lastGood.sha).toBe(series.shas[SLOW_COMMIT_INDEX - 1]);
      // The slow commit is measured slower than good, its whole CI below zero.
      expect(report.outcome.judgement?.verdict).toBe('regression');
      expect(report.outcome.judgement?.deltaPct).toBeLessThan(0);
      expect(report.outcome.judgement?.ci95?.upperPct).toBeLessThan(0);
      expect(report.walk).toBe('first-parent');
      expect(report.candidates).toBe(series.shas.length - 1);
      // Bad first, then the binary search; every call follows the verdict engine's verdict.
      expect(report.tested[0]!.sha).toBe(series.shas.at(-1));
      for (const t of report.tested) {
        expect(t.call).toBe(t.judgement.verdict === 'regression' ? 'bad' : 'good');
        expect(t.index < SLOW_COMMIT_INDEX ? 'good' : 'bad').toBe(t.call);
      }
      expect(report.tested.length).toBeLessThanOrEqual(1 + Math.ceil(Math.log2(series.shas.length - 1)));
      // Cost: good plus one build per commit tested, cached or not; an A/B test per try.
      expect(report.cost.builds).toBe(report.tested.length + 1);
      expect(report.cost.cacheHits).toBeLessThanOrEqual(report.cost.builds);
      expect(report.cost.tests).toBe(report.tested.reduce((n, t) => n + t.judgement.tries.length, 0));
      expect(report.cost.measureS).toBeGreaterThan(0);
      // Every A/B test was saved to the store, as the tested commit against good.
      const store = await DirStore.open(path.join(tmp, 'store'), { warn: () => {} });
      try {
        const runs = await store.list();
        // A commit with good's compiled code (a comment appended to int.c) is decided without measuring:
        // nothing to store. Every measured test is stored.
        const tries = report.tested.flatMap((t) =>
          t.judgement.tries.flatMap((x) => (x.storedAs ? [{ sha: t.sha, id: x.storedAs }] : [])),
        );
        expect(tries.length).toBeGreaterThan(0);
        expect(runs.map((r) => r.id).sort()).toEqual(tries.map((x) => x.id).sort());
        for (const { sha, id } of tries) {
          expect(runs.find((r) => r.id === id)!.commits.map((c) => c.sha)).toEqual([series.shas[0], sha]);
        }
      } finally {
        await store.close();
      }
      expect(ran.stderr).toMatch(/bisect: saved to the store .* as /);
      // Progress went to stderr, step by step.
      expect(ran.stderr).toMatch(/bisect step 1 of ~\d+: building/);
      expect(ran.stderr).toMatch(/bisect step 2 of ~\d+: measuring/);
      // The text report leads with the first bad commit.
      const text = renderBisectText(report);
      expect(text.split('\n')[0]).toContain(`first bad commit: ${short(slow)}`);
      console.log(text);
    },
    60 * 60_000,
  );

  it('refuses a good commit that is not an ancestor of bad, and good equal to bad, naming both', async () => {
    const swapped = await pgperf([
      'bisect',
      ...common(),
      ...noStore,
      '--good',
      series.shas[4]!,
      '--bad',
      series.shas[2]!,
      '--out',
      path.join(tmp, 'out'),
    ]);
    expect(swapped.code).toBe(2);
    expect(swapped.stderr).toContain(`--good ${series.shas[4]!}`);
    expect(swapped.stderr).toContain(`is not an ancestor of --bad ${series.shas[2]!}`);
    expect(swapped.stderr).toContain('swap them?');

    const diverged = await pgperf([
      'bisect',
      ...common(),
      ...noStore,
      '--good',
      'head',
      '--bad',
      series.branch,
      '--out',
      path.join(tmp, 'out'),
    ]);
    expect(diverged.code).toBe(2);
    expect(diverged.stderr).toMatch(/--good head \([0-9a-f]{7,}\) is not an ancestor of --bad bisect/);
    expect(diverged.stderr).toContain(`they diverge at ${short(series.shas[0]!)}`);

    const same = await pgperf([
      'bisect',
      ...common(),
      ...noStore,
      '--good',
      series.branch,
      '--bad',
      series.shas.at(-1)!,
      '--out',
      path.join(tmp, 'out'),
    ]);
    expect(same.code).toBe(2);
    expect(same.stderr).toContain(`--good bisect and --bad ${series.shas.at(-1)!} are the same commit`);
  }, 300_000);
});
