/**
 * Overhead of the wait-event sampler: select-only pgbench runs with and without startDiagnostics at
 * 10 Hz, alternated (ABAB...) on one cluster so drift hits both alike; reports the median TPS of each
 * and the ratio. The target is < 1% of TPS; on a noisy shared 2-vCPU machine the ratio's
 * spread is wider than that, so read it with the per-pair ratios printed. A noise-free bound follows:
 * the wall time of one sampling query (round trip included) times the rate, as a share of the CPUs.
 *
 *   npx tsx bench/wait-events.ts [--pairs 6] [--duration 5] [--clients 2] [--hz 10]
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { median } from 'simple-statistics';
import pg from 'pg';
import { ACTIVITY_SQL, startDiagnostics } from '../src/postgres/wait-events.js';
import { nodeProcessRunner } from '../src/machine/os/process.js';
import { barePgbench, withBenchCluster } from '../testkit/bench-cluster.js';

const { values } = parseArgs({
  options: {
    pairs: { type: 'string', default: '6' },
    duration: { type: 'string', default: '5' },
    clients: { type: 'string', default: '2' },
    hz: { type: 'string', default: '10' },
  },
});
const pairs = Number(values.pairs);
const duration = Number(values.duration);
const clients = Number(values.clients);
const hz = Number(values.hz);

await withBenchCluster('waits', { clients }, async ({ cluster, binDir }) => {
  const { host, port, user, database } = cluster.connection;
  const pgbench = path.join(binDir, 'pgbench');
  const conn = ['-h', host, '-p', String(port), '-U', user, database];
  const init = await nodeProcessRunner.run(pgbench, ['-i', '-s', '5', '-q', ...conn]);
  if (init.exitCode !== 0) throw new Error(init.stderr);
  const once = async (sampled: boolean) => {
    const running = sampled ? await startDiagnostics(cluster.connection, { hz }) : undefined;
    const tps = await barePgbench({ cluster, binDir }, { clients, durationS: duration });
    const diagnostics = await running?.stop();
    return { tps, samples: diagnostics?.samples ?? 0, missed: diagnostics?.missedTicks ?? 0 };
  };
  await once(false); // warm-up
  const off: number[] = [];
  const on: number[] = [];
  let samples = 0;
  let missed = 0;
  for (let i = 0; i < pairs; i++) {
    // Alternate which goes first, so neither arm always follows the other.
    const order = i % 2 === 0 ? [false, true] : [true, false];
    const pair: Record<string, number> = {};
    for (const sampled of order) {
      const r = await once(sampled);
      (sampled ? on : off).push(r.tps);
      pair[sampled ? 'on' : 'off'] = r.tps;
      samples += r.samples;
      missed += r.missed;
    }
    console.log(
      `pair ${i + 1}: without ${pair.off!.toFixed(0)} tps, with ${pair.on!.toFixed(0)} tps, ratio ${(pair.on! / pair.off!).toFixed(4)}`,
    );
  }
  const ratio = median(on) / median(off);
  console.log(
    `\nsampler at ${hz} Hz, ${pairs} pairs of ${duration} s, select-only -c ${clients}:\n` +
      `  median without ${median(off).toFixed(0)} tps, with ${median(on).toFixed(0)} tps\n` +
      `  ratio of medians ${ratio.toFixed(4)} (overhead ${((1 - ratio) * 100).toFixed(2)}%)\n` +
      `  median of pair ratios ${median(on.map((t, i) => t / off[i]!)).toFixed(4)}\n` +
      `  samples taken ${samples}, ticks missed ${missed}`,
  );

  // The bound: one sampling query's wall time while the 2-client load runs, times hz, over the CPUs.
  const client = new pg.Client({ host, port, user, database });
  await client.connect();
  const load = barePgbench({ cluster, binDir }, { clients, durationS: 4 });
  await new Promise((r) => setTimeout(r, 500));
  const times: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t0 = process.hrtime.bigint();
    await client.query(ACTIVITY_SQL);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  await client.end();
  await load;
  const perQueryMs = median(times);
  const cpus = os.availableParallelism();
  console.log(
    `  one sampling query: median ${perQueryMs.toFixed(3)} ms wall (under load); at ${hz} Hz that is at most ` +
      `${((hz * perQueryMs) / 10).toFixed(2)}% of one CPU, ${((hz * perQueryMs) / 10 / cpus).toFixed(2)}% of ${cpus} CPUs`,
  );
});
