/**
 * A workload's settings matrix through a real `pgperf run` (the CLI from the sources, tsx) on Debian's
 * PostgreSQL 15 as both arms: each value is a workload of its own in the report and in results.json; and
 * a matrix value an arm's server does not know (io_method, 18+) is refused by the known-settings check
 * before anything starts, as a plain setting is (src/postgres/cluster/known-settings.ts).
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseWorkloads } from '../../src/drivers/load-workload.js';
import type { Workload } from '../../src/drivers/workload.js';
import { refuseUnknownSettings } from '../../src/postgres/cluster/known-settings.js';
import { UserError } from '../../src/core/util/errors.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { processesMentioning } from '../../testkit/postgres.js';
import { isolatedEnv, onlyResults, runCli, sameInstallArms } from '../helpers/cli.js';
import { useTmpDir } from '../helpers/tmp-dir.js';
import { writeWorkloadFile } from '../helpers/workload-file.js';
import { installDeps } from '../helpers/run-as.js';

/** Debian's server, installed by scripts/setup.sh. */
const DEBIAN_15 = '/usr/lib/postgresql/15/bin';

const tmp = useTmpDir('pgperf-it-settings-matrix-', { killLeftovers: true });

/** select-only at scale 1 and 1 client, 2 rounds of 1 s, sweeping `matrix`. */
function workloadText(name: string, matrix: Record<string, string[]>): string {
  const fields = { tool: 'pgbench', builtin: 'select-only', scale: 1, clients: [1], duration: 1, warmup: 0 };
  return stringify({ name, ...fields, rounds: 2, matrix });
}

/** `pgperf run` of the workload file with Debian's 15 as both arms, results under `out`, clusters under `clusters`. */
async function run15(file: string, out: string, clusters: string) {
  await mkdir(clusters, { recursive: true, mode: 0o755 });
  const args = ['run', ...sameInstallArms(DEBIAN_15), '--workload', file];
  const flags = ['--out', out, '--tmp-dir', clusters, '--no-store', '--seed', '7', '--force'];
  return runCli([...args, ...flags, '--confirm-rounds', '0', '--fail-on', 'never'], {
    cwd: tmp(),
    env: isolatedEnv(tmp()),
    source: true,
    killAfterMs: 100_000,
  });
}

describe('a settings matrix in a real run', () => {
  it('measures each value as a workload of its own: report rows and results.json cells', async () => {
    const file = await writeWorkloadFile(tmp(), 'ro.yml', workloadText('ro', { work_mem: ['4MB', '64MB'] }));
    const out = path.join(tmp(), 'out');
    const clusters = path.join(tmp(), 'clusters');
    const ran = await run15(file, out, clusters);
    expect(ran.code, ran.stderr).toBe(0);
    // The report table has a row per value.
    expect(ran.stdout).toMatch(/^workload ro\[work_mem=4MB\] \(threshold 2%\)\nclients +n +base TPS/m);
    expect(ran.stdout).toMatch(/^workload ro\[work_mem=64MB\] \(threshold 2%\)\nclients +n +base TPS/m);

    const result = await onlyResults(out);
    expect(result.status).toBe('complete');
    // Keyed by workload name, each with the value in its settings.
    expect(Object.entries(result.workloads).map(([name, w]) => [name, (w as Workload).settings])).toEqual([
      ['ro[work_mem=4MB]', { work_mem: '4MB' }],
      ['ro[work_mem=64MB]', { work_mem: '64MB' }],
    ]);
    expect(result.plan.cells.map((c) => `${c.workload}@${c.clients}`).sort()).toEqual([
      'ro[work_mem=4MB]@1',
      'ro[work_mem=64MB]@1',
    ]);
    // Every cell measured on both arms in both rounds.
    const ok = result.samples.filter((s) => s.status === 'ok');
    expect(ok.map((s) => `${s.workload} ${s.arm}`).sort()).toEqual([
      'ro[work_mem=4MB] base',
      'ro[work_mem=4MB] base',
      'ro[work_mem=4MB] head',
      'ro[work_mem=4MB] head',
      'ro[work_mem=64MB] base',
      'ro[work_mem=64MB] base',
      'ro[work_mem=64MB] head',
      'ro[work_mem=64MB] head',
    ]);
    expect(processesMentioning(clusters)).toEqual([]);
  }, 120_000);

  it('refuses a matrix value a PostgreSQL 15 arm does not know (io_method) before anything starts', async () => {
    const file = await writeWorkloadFile(
      tmp(),
      'aio.yml',
      workloadText('aio', { io_method: ['sync', 'worker'] }),
    );
    const out = path.join(tmp(), 'out-refused');
    const clusters = path.join(tmp(), 'clusters-refused');
    const ran = await run15(file, out, clusters);
    expect(ran.code, ran.stderr).toBe(2);
    expect(ran.stderr).toMatch(
      /setting 'io_method' \(workload aio\[io_method=sync\], settings\) is not known to arm 'base' \(PostgreSQL 15\.\d+\) or arm 'head' \(PostgreSQL 15\.\d+\): no arm of this run knows it/,
    );
    // Nothing started: no cluster directory, no initdb, no results document.
    expect(await readdir(clusters)).toEqual([]);
    expect(ran.stderr).not.toMatch(/initdb|Setting up clusters/);
    expect(existsSync(out) ? await readdir(out, { recursive: true }) : []).not.toContainEqual(
      expect.stringMatching(/results\.json$/),
    );
  }, 60_000);

  it('every value reaches the known-settings check as the setting of a workload', async () => {
    const workloads = parseWorkloads(workloadText('aio', { io_method: ['sync', 'worker'] }), 'aio.yml');
    const arms = [{ label: 'base', binDir: DEBIAN_15, settings: {} }];
    const refused = refuseUnknownSettings(arms, workloads, {
      ...(await installDeps()),
      logger: memoryLogger(),
    });
    await expect(refused).rejects.toThrow(UserError);
    await expect(refused).rejects.toThrow(/workload aio\[io_method=sync\], settings/);
    await expect(refused).rejects.toThrow(/workload aio\[io_method=worker\], settings/);
  });
});
