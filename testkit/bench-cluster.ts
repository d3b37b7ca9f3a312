/**
 * A started PostgreSQL cluster of the machine's install for a bench script, in a temp dir, run as the
 * unprivileged run user when this is root (as a pgperf run does); `use` gets it, and the cluster and its
 * directory are gone afterwards, whatever `use` did.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PgCluster } from '../src/postgres/cluster/cluster.js';
import { resolveRunAs, type RunAsUser } from '../src/postgres/cluster/run-as.js';
import { consoleLogger } from '../src/core/util/logger.js';
import { nodeProcessRunner, type ProcessRunner } from '../src/machine/os/process.js';
import { parsePgbenchReport } from '../src/drivers/pgbench/parse-report.js';
import { installedBinDir } from './postgres.js';

export interface BenchCluster {
  cluster: PgCluster;
  binDir: string;
  runAs: RunAsUser | undefined;
}

export async function withBenchCluster<T>(
  name: string,
  options: { clients: number },
  use: (bench: BenchCluster) => Promise<T>,
): Promise<T> {
  const deps = { runner: nodeProcessRunner, logger: consoleLogger() };
  const binDir = installedBinDir();
  const runAs = await resolveRunAs(undefined, deps);
  const tmp = await mkdtemp(path.join(os.tmpdir(), `pgperf-bench-${name}-`));
  await chmod(tmp, 0o755);
  let cluster: PgCluster | undefined;
  try {
    cluster = await PgCluster.create(
      {
        label: 'bench',
        binDir,
        parentDir: tmp,
        conf: { maxClients: options.clients + 5, workloadSettings: {} },
        runAs,
      },
      deps,
    );
    await cluster.start();
    return await use({ cluster, binDir, runAs });
  } finally {
    await cluster?.destroy();
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * Plain `pgbench -n -S -M prepared -c C -j C -T D` against the cluster, as a hacker would type it: the
 * running process and, once it ends, its TPS (throws when pgbench failed or printed none).
 */
export function barePgbench(
  bench: Pick<BenchCluster, 'cluster' | 'binDir'>,
  options: { clients: number; durationS: number; runner?: ProcessRunner },
): Promise<number> {
  const { host, port, user, database } = bench.cluster.connection;
  const c = String(options.clients);
  const args = ['-n', '-S', '-M', 'prepared', '-c', c, '-j', c, '-T', String(options.durationS)];
  const conn = ['-h', host, '-p', String(port), '-U', user, database];
  const runner = options.runner ?? nodeProcessRunner;
  return runner.run(path.join(bench.binDir, 'pgbench'), [...args, ...conn]).then((res) => {
    const tps = parsePgbenchReport(res.stdout).tps;
    if (res.exitCode !== 0 || tps === undefined) throw new Error(`pgbench failed: ${res.stderr}`);
    return tps;
  });
}
