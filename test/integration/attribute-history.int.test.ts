/**
 * `pgperf attribute` end to end on real PostgreSQL 18 builds: the test kit's synthetic history of 12
 * commits on the 18.6 release (testkit/pg-history.ts: docs edits, comment edits in backend .c files, three
 * commits adding different per-query CPU work in exec_bind_message, PortalRun and standard_ExecutorStart,
 * and one removing most of the first's), attributed by the real CLI with a short select-only workload
 * counted by cachegrind. attribution.json must name exactly the four commits that move the count (the
 * removal as an improvement), their changes must add up to the end-to-end change within one percentage
 * point, each names the function its work went to as its top profile mover, and fewer commits are built
 * than the range holds (docs and comments are told from the source).
 *
 * Builds come from the shared test cache (testCacheDir()): warm, every build is a cache hit and the file
 * takes about the 5 counts (a few minutes on a loaded 2-core machine); cold, the four code-changing commits
 * are one-file ccache builds (a minute or two each) on top of the base install.
 */
import { chmod, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttributionReport } from '../../src/core/attribution/attribution-report.js';
import { preparePgHistoryRepo, type PgHistoryRepo } from '../../testkit/pg-history.js';
import { testCacheDir } from '../../testkit/pg-source.js';
import { runCli, type Ran } from '../helpers/cli.js';
import { instructionWorkloadFile } from '../helpers/workload-file.js';

const RUN_TIMEOUT_MS = 60 * 60_000;
const cacheDir = testCacheDir();
let history: PgHistoryRepo;
let tmp: string;
let ran: Ran;
let report: AttributionReport;

beforeAll(async () => {
  await mkdir(cacheDir, { recursive: true, mode: 0o755 });
  await chmod(cacheDir, 0o755); // PostgreSQL runs as an unprivileged user and executes the installs
  history = await preparePgHistoryRepo({ dir: path.join(cacheDir, 'repos', 'pg18-history') });
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-attribute-'));
  await chmod(tmp, 0o755);
  const workload = await instructionWorkloadFile(tmp, 1, '{ repetitions: 3 }');
  const out = path.join(tmp, 'attribution');
  ran = await runCli(
    [
      'attribute',
      ...['--repo', history.dir, '--from', history.baseRef, '--to', history.headRef],
      ...['--workload', workload, '--instruction-counter', 'cachegrind'],
      ...['--cache-dir', cacheDir, '--out', out],
    ],
    { cwd: tmp, source: true, killAfterMs: RUN_TIMEOUT_MS - 60_000 },
  );
  report = JSON.parse(await readFile(path.join(out, 'attribution.json'), 'utf8')) as AttributionReport;
}, RUN_TIMEOUT_MS);

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('pgperf attribute on a real 12-commit history', () => {
  it('names exactly the four commits that move the count, the removal as an improvement', () => {
    expect(ran.code, ran.stderr.slice(-3000)).toBe(0);
    expect(report.commits).toBe(12);
    expect(report.culprits.map((c) => c.sha)).toEqual(history.culprits.map((c) => c.sha));
    const change = (sha: string) => report.culprits.find((c) => c.sha === sha)!.changes[0]!.changePerTx;
    const [bind, portalRun, executorStart, removal] = history.culprits.map((c) => change(c.sha));
    // Different amounts of work, in the order of their loops' iterations; the removal takes most of the first's.
    expect(bind).toBeGreaterThan(portalRun!);
    expect(portalRun).toBeGreaterThan(executorStart!);
    expect(executorStart).toBeGreaterThan(0);
    expect(removal).toBeLessThan(0);
    expect(-removal! / bind!).toBeGreaterThan(0.7);
    expect(-removal! / bind!).toBeLessThan(0.9);
    expect(ran.stdout).toContain(history.culprits[3]!.sha.slice(0, 7));
  });

  it("shows each commit's top profile mover: the function its loop's work went to, with its sign", async () => {
    for (const c of report.culprits) {
      const x = c.changes[0]!;
      expect(x.moversMissing, c.subject).toBeUndefined();
      const top = x.movers!.top[0]!;
      // The loop is inline in one function (or in the function it is inlined into): most of the change.
      expect(Math.sign(top.deltaIrPerTx), `${c.subject}: ${top.fn}`).toBe(Math.sign(x.changePerTx));
      expect(Math.abs(top.deltaIrPerTx), `${c.subject}: ${top.fn}`).toBeGreaterThan(
        0.5 * Math.abs(x.changePerTx),
      );
      await readFile(path.join(tmp, 'attribution', x.movers!.file), 'utf8');
    }
    expect(ran.stdout).toContain('top movers (self instructions/tx, parent -> commit');
  });

  it('their changes add up to the end-to-end change within one percentage point', () => {
    const [w] = report.workloads;
    expect(w!.changePerTx).toBeGreaterThan(0);
    const shares = report.culprits.map((c) => c.changes[0]!.sharePct!);
    expect(Math.abs(shares.reduce((s, x) => s + x, 0) - 100)).toBeLessThanOrEqual(1);
    expect((100 * Math.abs(w!.culpritSumPerTx - w!.changePerTx)) / w!.fromPerTx).toBeLessThanOrEqual(1);
    expect(report.unresolved).toEqual([]);
  });

  it('builds fewer commits than the range holds: docs and comment commits are told from their source', () => {
    const docsAndComments = history.commits.filter((c) => c.kind !== 'work' && c.kind !== 'removal');
    const counted = new Set(report.points.filter((p) => p.counted).map((p) => p.sha));
    for (const c of docsAndComments.slice(0, -1)) expect(counted.has(c.sha), c.subject).toBe(false);
    expect(report.cost.builds).toBeLessThan(8);
    expect(report.budget.counted).toBeLessThanOrEqual(6);
  });
});
