/**
 * `pgperf plan --store` and the run's noise warning through the built CLI (dist/cli.js; `node
 * scripts/build.mjs` first), over a directory store filled by a real short `pgperf calibrate` (real
 * PostgreSQL and pgbench): the plan reads this runner's noise from the calibration, and a run whose
 * threshold is below what its rounds resolve says so in its warnings.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/core/results/result-types.js';
import type { StoredRun } from '../../src/store/store.js';
import { flags, isolatedEnv, runCli, sameInstallRun, type Ran } from '../helpers/cli.js';
import { useTmpDir } from '../helpers/tmp-dir.js';
import { installedBinDir } from '../../testkit/postgres.js';

const binDir = installedBinDir();
const tmp = useTmpDir('pgperf-it-plan-noise-', { killLeftovers: true });
let workload: string;
let store: string;

beforeAll(async () => {
  workload = path.join(tmp(), 'noise.yml');
  await writeFile(
    workload,
    'name: noise\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 4\n',
  );
  await chmod(workload, 0o644);
  store = path.join(tmp(), 'store');
});

function pgperf(args: string[]): Promise<Ran> {
  return runCli(args, { cwd: tmp(), env: isolatedEnv(tmp()) });
}

interface PlanJson {
  runner: string;
  hypotheses: number;
  cells: Array<{
    id: string;
    rounds: number;
    thresholdPct: number;
    resolvablePct: number | null;
    recommendedRounds: number | null;
    belowResolvable: boolean;
    noise: { source: string; runId: string; points: number; perRoundCvPct: number };
  }>;
  missing: Array<{ id: string; reason: string }>;
}

describe('pgperf plan with the runner noise (real PostgreSQL and pgbench)', () => {
  it('without stored noise says so and how to get it', async () => {
    const empty = path.join(tmp(), 'empty');
    const ran = await pgperf(['plan', '--workload', workload, '--store', empty]);
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('no stored noise for this runner');
    expect(ran.stdout).toContain('pgperf calibrate');
    // Nothing stored at all: one line names the cells (--json keeps each cell's reason).
    expect(ran.stdout).toMatch(/^cells without noise: noise@1$/m);
    const json = await pgperf(['plan', '--workload', workload, '--store', empty, '--json']);
    expect(JSON.parse(json.stdout).missing).toEqual([
      expect.objectContaining({
        id: 'noise@1',
        reason: expect.stringMatching(/^no calibration \(A\/A\) run of noise@1 on this runner/),
      }),
    ]);
  });

  it('plans from a stored calibration, and a run below the resolvable change warns', async () => {
    const calibrated = await pgperf([
      'calibrate',
      ...flags({ bin: binDir, workload, rounds: 3, store, out: path.join(tmp(), 'out-cal'), tmpDir: tmp() }),
    ]);
    expect(calibrated.code, calibrated.stderr).toBe(0);
    const [cal] = JSON.parse(
      (await pgperf(['store', 'list', '--store', store, '--json'])).stdout,
    ) as StoredRun[];
    // The stored run records that it was a calibration (A/A).
    const stored = JSON.parse(
      await readFile(path.join(store, 'runs', `${cal!.id}.json`), 'utf8'),
    ) as RunResult;
    expect(stored.calibration).toBe(true);

    const planned = await pgperf(['plan', ...flags({ workload, store, threshold: 0.5, json: true })]);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as PlanJson;
    expect(plan.missing).toEqual([]);
    const [cell] = plan.cells;
    expect(cell).toMatchObject({ id: 'noise@1', rounds: 4, thresholdPct: 0.5 });
    expect(cell!.noise).toMatchObject({ source: 'calibration', runId: cal!.id, points: 3 });
    expect(cell!.noise.perRoundCvPct).toBeGreaterThan(0);
    // Four 1-second rounds on a shared machine cannot resolve half a percent.
    expect(cell!.belowResolvable).toBe(true);
    if (cell!.recommendedRounds !== null) expect(cell!.recommendedRounds).toBeGreaterThan(4);

    const text = await pgperf(['plan', '--workload', workload, '--store', store, '--threshold', '0.5']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`calibration ${cal!.id}`);
    expect(text.stdout).toMatch(/^noise@1 +\d+\.\d% +\d+\.\d% +calibration /m);
    // --shards with --store prints both.
    const both = await pgperf(['plan', '--workload', workload, '--store', store, '--shards', '1']);
    expect(both.stdout).toContain(`calibration ${cal!.id}`);
    expect(both.stdout).toMatch(/shard 1\/1/);

    // An A/B run (head differs by a setting select-only never touches) with the same too-small threshold.
    // 3 rounds can never be significant (nor inside ±0.5%): the cell stays inconclusive, so it is warned.
    // The timed metric alone (--no-instructions): counted by default, unchanged counts could pass the cell.
    const set = ['head:log_min_duration_statement=-1'];
    const run = await pgperf([
      ...sameInstallRun(binDir, {
        set,
        workload,
        threshold: 0.5,
        rounds: 3,
        force: true,
        store,
        noInstructions: true,
      }),
      ...flags({ out: path.join(tmp(), 'out-run'), tmpDir: tmp() }),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      'noise@1: the 0.5% threshold is below what this runner resolves with 3 rounds (none: they cannot reach significance',
    );
    expect(run.stdout).toContain(`from calibration ${cal!.id}`);
    expect(run.stdout).toContain(
      cell!.recommendedRounds === null
        ? 'no practical number of rounds resolves it'
        : `about ${cell!.recommendedRounds} rounds would resolve it`,
    );
  }, 300_000);
});
