/**
 * Same compiled code, no rounds, on real builds: `pgperf run` builds base (PostgreSQL 18.6 from the build
 * tests' cached source repository, testkit/pg-source.ts) and a head that touches only doc/ and src/test/
 * (test/fixtures/patches/docs-and-tests-only.patch), finds their 973-odd programs, libraries and data files
 * equal once the install paths are masked, starts no server and measures nothing, and passes: exit 0, the
 * headline, decision.json (every cell "same compiled code") and the results document agree. A head that
 * only adds a comment to a backend .c file is not the same code (its __LINE__ immediates moved): the run
 * says which functions changed, counts select-only's instructions by default, finds that none of them ran,
 * and passes with no timed round. Both installs come from the build cache after the first run.
 */
import { mkdtemp, rm, chmod } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparePgSourceRepo, testCacheDir, type PgSourceRepo } from '../../testkit/pg-source.js';
import { processesMentioning } from '../../testkit/postgres.js';
import { runMain } from '../helpers/main-in-process.js';
import { onlyRunDocuments } from '../helpers/cli.js';
import { writeWorkloadFile } from '../helpers/workload-file.js';

const BUILD_TIMEOUT_MS = 40 * 60_000;
const fixture = (name: string) => new URL(`../fixtures/patches/${name}`, import.meta.url).pathname;
let tmp: string;
let pg18: PgSourceRepo;

beforeAll(async () => {
  pg18 = await preparePgSourceRepo({ major: 18, dir: path.join(testCacheDir(), 'repos', 'pg18') });
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-samecode-'));
  await chmod(tmp, 0o755);
});

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** `pgperf run` of base against base plus `patch`, built from the fixture repository; its documents. */
async function runPatched(patch: string, outName: string) {
  const out = path.join(tmp, outName);
  const ran = await runMain([
    'run',
    '--repo',
    pg18.dir,
    '--base',
    pg18.baseRef,
    '--head-patch',
    fixture(patch),
    '--cache-dir',
    testCacheDir(),
    '--workload',
    await writeWorkloadFile(
      tmp,
      'select-only.yml',
      'name: select-only\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 5\n',
    ),
    '--out',
    out,
    '--tmp-dir',
    tmp,
    '--no-store',
  ]);
  return { ran, ...(await onlyRunDocuments(out)) };
}

describe('same compiled code on real builds', () => {
  it(
    'a patch touching only doc/ and src/test/: no server, no round, passed as the same compiled code',
    async () => {
      const { ran, result, decision } = await runPatched('docs-and-tests-only.patch', 'docs');
      expect(ran.code, ran.stderr).toBe(0);
      expect(result.status).toBe('complete');
      expect(result.samples).toEqual([]);
      expect(result.plan.rounds).toBe(0);
      expect(result.compiledCode).toEqual([
        expect.objectContaining({ head: 'head', identical: true, differingCount: 0 }),
      ]);
      expect(result.compiledCode![0]!.files).toBeGreaterThan(500);
      expect(decision).toMatchObject({ outcome: 'passed', exitCode: 0, verdict: 'no-change' });
      expect(decision.status.state).toBe('success');
      expect(decision.cells.map((c) => c.evidence)).toEqual(['same compiled code']);
      expect(ran.stdout.split('\n')[0]).toBe(
        'PASSED: No change in 1 cell: same compiled code as base, same settings: nothing measured',
      );
      expect(ran.stdout + ran.stderr).toMatch(/no timed rounds: every head runs the same compiled code/);
      expect(ran.stdout + ran.stderr).not.toMatch(/initdb/);
      expect(processesMentioning(tmp)).toEqual([]);
    },
    BUILD_TIMEOUT_MS,
  );

  it(
    'a comment in a backend .c file is not the same code; select-only runs none of the functions it changed: no change (changed code not executed), no timed round',
    async () => {
      const { ran, result, decision } = await runPatched('int4in-comment-only.patch', 'comment');
      const code = result.compiledCode![0]!;
      expect(code).toMatchObject({ identical: false, differingFiles: ['bin/postgres'] });
      // Only int.c's functions whose __LINE__ moved (elog's line numbers after the comment) differ.
      const functions = code.serverFunctions!;
      expect(functions.changed.length).toBeGreaterThan(0);
      expect(functions.changed.every((f) => /^(int|i[248]|generate_series|in_range)/.test(f))).toBe(true);
      expect(functions.immediatesOnlyCount).toBe(functions.changedCount);
      // The counting servers' every process (read once they stopped) ran none of them: no timed round.
      expect(result.instructions!.changedCode).toEqual([
        {
          workload: 'select-only',
          head: 'head',
          changedCount: functions.changedCount,
          executed: [],
          executedCount: 0,
        },
      ]);
      expect(result.samples).toEqual([]);
      expect(result.plan.rounds).toBe(0);
      expect(ran.code, ran.stderr).toBe(0);
      expect(decision).toMatchObject({ outcome: 'passed', exitCode: 0, verdict: 'no-change' });
      expect(decision.cells.map((c) => c.evidence)).toEqual(
        decision.cells.map(() => 'changed code not executed'),
      );
      expect(ran.stdout.split('\n')[0]).toMatch(
        /^PASSED: No change in 2 cells \(changed code not executed, not measured\): none of the \d+ changed functions \((in|i[248])\w*(\.cold)?, .*; each changed only in immediates, e\.g\. __LINE__\) ran in the counted runs; code placement can still move timings$/,
      );
      expect(ran.stdout + ran.stderr).toMatch(/no timed rounds: no workload's counted runs executed any/);
      expect(processesMentioning(tmp)).toEqual([]);
    },
    BUILD_TIMEOUT_MS,
  );
});
