/**
 * Noise floors from the nightly history, end to end through the built CLI (dist/cli.js; `node
 * scripts/build.mjs` first): a directory store holding nightly runs of this machine (made from real pgbench
 * runs of a noisy runner, test/fixtures/history/README.md, with this machine's facts so they are its
 * history, each night recording the workload's definition as this run resolves it and, like this run of
 * two installs, no branch), then a real A/B `pgperf run` (real PostgreSQL and pgbench) of that workload with
 * the store.
 * The run records the floor before measuring, and every surface that renders the cell says where it came
 * from; `pgperf compare` on the results file judges with the same floor.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/core/results/result-types.js';
import { captureEnvironment } from '../../src/machine/environment.js';
import { openStore } from '../../src/store/open/open-store.js';
import { MIN_FLOOR_RUNS } from '../../src/flows/compare/noise/noise-floors.js';
import { loadWorkloadFile } from '../../src/drivers/load-workload.js';
import { flags, isolatedEnv, onlyResultsFile, runCli, sameInstallRun } from '../helpers/cli.js';
import { useTmpDir } from '../helpers/tmp-dir.js';
import { installedBinDir } from '../../testkit/postgres.js';
import { noisyHistory, WORKLOAD } from '../unit/history/noisy-history.js';

const binDir = installedBinDir();
const tmp = useTmpDir('pgperf-it-floors-', { killLeftovers: true });
let workload: string;
let store: string;

beforeAll(async () => {
  workload = path.join(tmp(), 'floor.yml');
  await writeFile(
    workload,
    `name: ${WORKLOAD}\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 3\n`,
  );
  await chmod(workload, 0o644);
  store = path.join(tmp(), 'store');
  // The nightly history, as this machine's: its facts decide whose history a run reads.
  const environment = await captureEnvironment('fixture');
  const opened = await openStore(store, { home: '/nonexistent', warn: () => {}, write: true });
  // The definition the run will record: only nights of the same definition make its floor.
  const definition = JSON.parse(JSON.stringify(await loadWorkloadFile(workload))) as unknown;
  for (const night of noisyHistory({ nights: MIN_FLOOR_RUNS + 2, clients: [1] })) {
    const { fingerprint: _fingerprint, ...run } = night;
    await opened.save({
      ...run,
      environment: { ...environment, facts: { ...environment.facts } },
      workloads: { [WORKLOAD]: definition },
      source: { head: { sha: run.source!.head!.sha! } },
    });
  }
  await opened.close?.();
});

describe('a run with nightly history in its store (real PostgreSQL and pgbench)', () => {
  it('records the floor before measuring and says where each cell threshold came from', async () => {
    const out = path.join(tmp(), 'out');
    const env = isolatedEnv(tmp());
    const run = await runCli(
      [
        ...sameInstallRun(binDir, {
          set: ['head:log_min_duration_statement=-1'],
          noInstructions: true,
          workload,
          rounds: 3,
          force: true,
          store,
        }),
        ...flags({ out, tmpDir: tmp() }),
      ],
      { cwd: tmp(), env },
    );
    expect(run.code, run.stderr).not.toBe(2);
    expect(run.stdout + run.stderr).toContain(
      "noise floors from this runner's nightly history of runs that name no branch: select-only@1 tps",
    );
    const file = await onlyResultsFile(out);
    const result = JSON.parse(await readFile(file, 'utf8')) as RunResult;
    expect(result.analysis?.noiseFloors).toEqual([
      expect.objectContaining({
        workload: WORKLOAD,
        clients: 1,
        metric: 'tps',
        runs: MIN_FLOOR_RUNS + 2,
        firstRunId: expect.any(String),
        branch: null,
      }),
    ]);
    const floorPct = result.analysis!.noiseFloors![0]!.floorPct;
    expect(floorPct).toBeGreaterThan(0);
    // The terminal table's notes name the history the floor came from.
    expect(run.stdout).toContain(`${MIN_FLOOR_RUNS + 2} nightly runs on this runner (2026-10-01 to`);
    // pgperf compare on the results file, and its markdown (the PR comment), judge and say the same.
    for (const format of ['text', 'markdown']) {
      const compared = await runCli(['compare', file, '--format', format], { cwd: tmp(), env });
      expect(compared.stdout).toContain(`${MIN_FLOOR_RUNS + 2} nightly runs on this runner`);
    }
    const json = JSON.parse((await runCli(['compare', file, '--json'], { cwd: tmp(), env })).stdout);
    expect(JSON.stringify(json)).toMatch(/"code":"(noisy-history|threshold-from-history)"/);
  }, 240_000);
});
