/**
 * The built action's `mode: attribute` (dist/index.js as the runner runs it, on workflow_dispatch): the
 * commits of base-ref..head-ref that moved the instructions per transaction, on real PostgreSQL 18 builds
 * of the test kit's history (testkit/pg-history.ts). To keep the cost down the range is three commits of
 * it, from the PortalRun work commit to the standard_ExecutorStart one: a comment commit, a docs commit
 * (both told from the source, never built) and the work commit, whose ends are in the shared test cache
 * after attribute-history.int (cold: a one-file ccache build each). The summary, the outputs and the files
 * under results-dir must name the one culprit.
 */
import { chmod, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttributionReport } from '../../src/core/attribution/attribution-report.js';
import { preparePgHistoryRepo, type PgHistoryRepo } from '../../testkit/pg-history.js';
import { testCacheDir } from '../../testkit/pg-source.js';
import { processesMentioning } from '../../testkit/postgres.js';
import { runBuiltAction } from '../helpers/action-run.js';
import { instructionWorkloadFile } from '../helpers/workload-file.js';

const cacheDir = testCacheDir();
let history: PgHistoryRepo;
let tmp: string;

beforeAll(async () => {
  await mkdir(cacheDir, { recursive: true, mode: 0o755 });
  await chmod(cacheDir, 0o755);
  // A repository of its own (the same fixed commits, so the same cached installs): the integration test
  // remakes its branch while it runs.
  history = await preparePgHistoryRepo({ dir: path.join(cacheDir, 'repos', 'pg18-history-action') });
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-e2e-attribute-'));
  await chmod(tmp, 0o755);
}, 600_000);

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('mode attribute', () => {
  it('names the one commit of base-ref..head-ref that moved the count: summary, outputs and files', async () => {
    const [from, , , to] = history.commits.slice(5, 9);
    expect([from!.kind, to!.kind]).toEqual(['work', 'work']);
    const ran = await runBuiltAction(
      {
        mode: 'attribute',
        repo: history.dir,
        'base-ref': from!.sha,
        'head-ref': to!.sha,
        workloads: await instructionWorkloadFile(tmp, 1, '{ repetitions: 3 }'),
        'cache-dir': cacheDir,
        'results-dir': 'attribution',
        'github-token': '',
      },
      {
        workspace: tmp,
        apiUrl: 'http://127.0.0.1:9',
        event: { inputs: {} },
        eventName: 'workflow_dispatch',
        sha: to!.sha,
      },
    );
    expect(ran.code, ran.stdout.slice(-4000)).toBe(0);
    expect(ran.outputs.culprits).toBe(to!.sha);
    const report = JSON.parse(await readFile(ran.outputs['attribution-json']!, 'utf8')) as AttributionReport;
    expect(report.commits).toBe(3);
    expect(report.culprits.map((c) => c.sha)).toEqual([to!.sha]);
    expect(report.culprits[0]!.changes[0]!.changePerTx).toBeGreaterThan(0);
    expect(ran.summary).toContain(to!.sha.slice(0, 7));
    const markdown = await readFile(ran.outputs['report-markdown']!, 'utf8');
    expect(markdown).toContain('waterfall.svg');
    const svg = await readFile(
      path.join(path.dirname(ran.outputs['attribution-json']!), 'waterfall.svg'),
      'utf8',
    );
    expect(svg).toMatch(/^(<\?xml [^>]*\?>\s*)?<svg[\s\S]*<\/svg>\s*$/);
    expect(svg).toContain(`data-kind="commit"`);
    expect(svg).toContain(to!.sha.slice(0, 7));
    expect(processesMentioning(tmp)).toEqual([]);
  }, 1_200_000);
});
