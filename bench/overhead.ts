/**
 * pgperf's own overhead (#21 item 6): on one server and one workload, in one session, rounds of three
 * measured runs in a rotating order, each after the same reset (VACUUM, CHECKPOINT) outside the measured
 * time:
 *
 *   bare     plain `pgbench -n -S -M prepared -c C -j C -T D`, as a hacker would type it;
 *   pgperf   pgperf's pgbench driver (its arguments: progress reports, seed, ...), nothing around it;
 *   full     the driver as a pgperf run measures: a pg_stat/proc snapshot before and after (the steady
 *            metrics) and the wait-event sampler at 10 Hz during the run.
 *
 * Prints per round and the medians: pgperf/bare (goal ≥ 0.99) and full/pgperf, the cost of the steady
 * metrics and the sampler (goal: ≤ 0.5 % of TPS), with the median of per-round ratios (drift within a
 * round hits all three alike) and the wall time of one snapshot. On a shared 2-vCPU VM the run-to-run
 * spread (CV 4-20 %) is wider than these goals: read the per-round ratios and run more rounds.
 *
 *   npx tsx bench/overhead.ts [--rounds 8] [--duration 10] [--clients 2] [--scale 5]
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { median } from 'simple-statistics';
import { parseWorkload } from '../src/drivers/load-workload.js';
import { createDriver } from '../src/drivers/registry.js';
import { takeStatSnapshot } from '../src/postgres/stat-snapshot.js';
import { startDiagnostics } from '../src/postgres/wait-events.js';
import { memoryLogger } from '../src/core/util/logger.js';
import { nodeProcessRunner, runnerAs } from '../src/machine/os/process.js';
import { barePgbench, withBenchCluster } from '../testkit/bench-cluster.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '8' },
    duration: { type: 'string', default: '10' },
    clients: { type: 'string', default: '2' },
    scale: { type: 'string', default: '5' },
  },
});
const rounds = Number(values.rounds);
const duration = Number(values.duration);
const clients = Number(values.clients);
const scale = Number(values.scale);

type Arm = 'bare' | 'pgperf' | 'full';
const ARMS: Arm[] = ['bare', 'pgperf', 'full'];

await withBenchCluster('overhead', { clients }, async ({ cluster, binDir, runAs }) => {
  // The clients run as a pgperf run runs them: as the unprivileged run user when this is root.
  const runner = runAs ? runnerAs(nodeProcessRunner, runAs) : nodeProcessRunner;
  const workload = parseWorkload(
    `name: overhead\ntool: pgbench\nbuiltin: select-only\nqueryMode: prepared\nscale: ${scale}\nclients: [${clients}]\nduration: ${duration}\nwarmup: 0\nrounds: 1\n`,
    'bench/overhead.ts',
  );
  const driver = createDriver(workload, {
    clientBinDir: binDir,
    cpuCount: os.availableParallelism(),
    runner,
    logger: memoryLogger(),
    searchPath: process.env.PATH ?? '',
    ...(runAs ? { clientUser: runAs } : {}),
  });
  await driver.prepare(cluster);
  const snapshotMs: number[] = [];
  const timedSnapshot = async () => {
    const t0 = process.hrtime.bigint();
    await takeStatSnapshot(cluster.connection);
    snapshotMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
  };

  const once = async (arm: Arm, seed: number): Promise<number> => {
    await driver.beforeRun(cluster);
    if (arm === 'bare') {
      return barePgbench({ cluster, binDir }, { clients, durationS: duration, runner });
    }
    if (arm === 'full') await timedSnapshot();
    const sampler = arm === 'full' ? await startDiagnostics(cluster.connection) : undefined;
    const out = await driver.run(cluster, { clients, durationS: duration, seed });
    await sampler?.stop();
    if (arm === 'full') await timedSnapshot();
    if (!out.ok || out.metrics.tps === undefined) throw new Error(`driver run failed: ${out.failureReason}`);
    return out.metrics.tps;
  };

  await once('bare', 0); // warm-up: caches and the OS page cache, counted nowhere
  const tps: Record<Arm, number[]> = { bare: [], pgperf: [], full: [] };
  for (let r = 0; r < rounds; r++) {
    // Rotate the order so no arm always runs first (or right after a CHECKPOINT of a busy arm).
    const order = ARMS.map((_, i) => ARMS[(i + r) % ARMS.length]!);
    for (const arm of order) tps[arm].push(await once(arm, 1000 + r));
    console.log(
      `round ${r + 1}/${rounds}: bare ${tps.bare[r]!.toFixed(0)}, pgperf ${tps.pgperf[r]!.toFixed(0)}, ` +
        `full ${tps.full[r]!.toFixed(0)} tps; pgperf/bare ${(tps.pgperf[r]! / tps.bare[r]!).toFixed(4)}, ` +
        `full/pgperf ${(tps.full[r]! / tps.pgperf[r]!).toFixed(4)}`,
    );
  }
  const ratio = (a: Arm, b: Arm) => ({
    ofMedians: median(tps[a]) / median(tps[b]),
    pairedMedian: median(tps[a].map((t, i) => t / tps[b][i]!)),
  });
  const client = ratio('pgperf', 'bare');
  const sampling = ratio('full', 'pgperf');
  const total = ratio('full', 'bare');
  const pct = (x: number) => `${((1 - x) * 100).toFixed(2)}%`;
  console.log(
    `\nselect-only prepared, -c ${clients}, scale ${scale}, ${rounds} rounds of ${duration} s per arm:\n` +
      `  median tps: bare ${median(tps.bare).toFixed(0)}, pgperf ${median(tps.pgperf).toFixed(0)}, full ${median(tps.full).toFixed(0)}\n` +
      `  pgperf/bare: ${client.pairedMedian.toFixed(4)} median per round, ${client.ofMedians.toFixed(4)} of medians (goal ≥ 0.99)\n` +
      `  steady metrics + sampler (full/pgperf): ${sampling.pairedMedian.toFixed(4)} per round (cost ${pct(sampling.pairedMedian)}; goal ≤ 0.5%)\n` +
      `  full/bare: ${total.pairedMedian.toFixed(4)} per round (cost ${pct(total.pairedMedian)})\n` +
      `  one counter snapshot: median ${median(snapshotMs).toFixed(0)} ms wall, taken outside the measured time`,
  );
});
