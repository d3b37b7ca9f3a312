/**
 * A comparison split into 3 shards, run as 3 separate `pgperf run --shard I/3` processes of the built CLI
 * on this machine (two arms: the installed PostgreSQL with synchronous_commit on and off), consolidated into
 * one report; a missing shard; shards of two different comparisons refused.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { consolidateShards } from '../../src/flows/consolidate/shard-merge.js';
import { readResults } from '../../src/store/read-results.js';
import { cellId } from '../../src/core/results/result-types.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';
import { flags, onlyResultsFile, runCli, sameInstallRun } from '../helpers/cli.js';
import { useTmpDir } from '../helpers/tmp-dir.js';

const binDir = installedBinDir();
const tmp = useTmpDir('pgperf-it-fleet-');
let workloadFile: string;
const shardFiles: string[] = [];

const pgperf = (args: string[]) => runCli(args, { cwd: tmp() });

const runArgs = (extra: string[]) => [
  ...sameInstallRun(binDir, { set: ['head:synchronous_commit=off'], workload: workloadFile, seed: 42 }),
  // --force: 2 rounds cannot reach significance; the shards test splitting, not verdicts.
  ...flags({ noStore: true, tmpDir: tmp(), force: true, noInstructions: true }),
  ...extra,
];

beforeAll(async () => {
  workloadFile = path.join(tmp(), 'fleet.yml');
  await writeFile(
    workloadFile,
    'name: fleet\ntool: pgbench\nbuiltin: tpcb-like\nscale: 1\nclients: [1, 2, 3]\nduration: 1\nwarmup: 1\nrounds: 2\n',
  );
  for (const i of [1, 2, 3]) {
    const ran = await pgperf(runArgs(['--shard', `${i}/3`, '--out', path.join(tmp(), `shard${i}`)]));
    expect(ran.code, ran.stderr).toBe(0);
    shardFiles.push(await onlyResultsFile(path.join(tmp(), `shard${i}`)));
  }
}, 600_000);

describe('sharded comparison', () => {
  it('plans the same split the shards ran, and each shard ran only its own cells', async () => {
    const planned = await pgperf(['plan', '--workload', workloadFile, '--shards', '3', '--json']);
    const plan = JSON.parse(planned.stdout) as {
      planId: string;
      shards: Array<{ cells: Array<{ workload: string; clients: number }> }>;
    };
    for (const [i, file] of shardFiles.entries()) {
      const result = await readResults(file);
      expect(result.plan.shard).toMatchObject({ planId: plan.planId, index: i + 1, count: 3 });
      expect(result.plan.cells.map(cellId)).toEqual(plan.shards[i]!.cells.map(cellId));
      expect(new Set(result.samples.map(cellId))).toEqual(new Set(plan.shards[i]!.cells.map(cellId)));
    }
    expect(processesMentioning(tmp())).toEqual([]);
  });

  it('consolidates the three shards into one report with every cell, Holm over all of them', async () => {
    const docs = await Promise.all(
      shardFiles.map(async (file) => ({ file, result: await readResults(file) })),
    );
    const merged = consolidateShards(docs);
    expect(merged.classes).toHaveLength(1);
    const only = merged.classes[0]!;
    expect(only.missing).toEqual([]);
    expect(only.result.status).toBe('complete');
    expect(only.result.plan.cells.map(cellId)).toEqual(['fleet@1', 'fleet@2', 'fleet@3']);
    const ran = await pgperf(['consolidate', ...shardFiles]);
    // Pending by construction, whatever this machine's noise: every cell has 2 rounds (2 pairs: a signed-rank
    // p of at least 0.5, a Mann-Whitney p of at least 0.33, a 90% interval of at most 50% confidence), so no
    // cell is changed, unchanged or a likely regression, and nothing fails the gate.
    expect(ran.stdout).toMatch(/^PENDING: .* \(1 machine class, plan [0-9a-f]{16}, 3 shards\)/);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('shards 1, 2, 3 of 3');
  });

  it('names a missing shard and leaves the verdict inconclusive', async () => {
    const ran = await pgperf(['consolidate', shardFiles[0]!, shardFiles[1]!]);
    expect(ran.code, ran.stderr).toBe(3);
    expect(ran.stdout).toMatch(/^INCOMPLETE: Incomplete: shard 3 of 3 missing; .* \(1 machine class,/);
    expect(ran.stdout).toContain('MISSING 3');
    expect(ran.stdout).toMatch(/shard 3 of 3 missing: no data for fleet@\d/);
  });

  it('refuses shards of a different comparison and a shard given twice, naming the files', async () => {
    const other = await pgperf(
      runArgs(['--shard', '1/3', '--rounds', '3', '--out', path.join(tmp(), 'other')]),
    );
    expect(other.code, other.stderr).toBe(0);
    const otherFile = await onlyResultsFile(path.join(tmp(), 'other'));
    const mixed = await pgperf(['consolidate', shardFiles[0]!, otherFile]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain(`${otherFile}: plan`);
    expect(mixed.stderr).toContain('the shards belong to different comparisons');
    const twice = await pgperf(['consolidate', shardFiles[0]!, shardFiles[0]!]);
    expect(twice.stderr).toMatch(/are both shard 1\/3 of machine class/);
  }, 300_000);
});
