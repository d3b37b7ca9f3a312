/**
 * The run's servers: one cluster per arm and data set, created, started and loaded before the first round,
 * restarted for the confirmation block, revived when one dies during a run, and destroyed (their server
 * logs kept) when the run ends.
 */
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { Workload } from '../drivers/workload.js';
import type { Driver, RunOutcome } from '../drivers/common/driver.js';
import { dataSetShape } from '../drivers/registry.js';
import { PgCluster, type ClusterDeps, type ClusterSpec } from '../postgres/cluster/cluster.js';
import { settingsHash } from '../postgres/cluster/conf.js';
import type { RunAsUser } from '../postgres/cluster/run-as.js';
import type { CpuPlan } from '../machine/pinning.js';
import { makeDirectory } from '../machine/os/writable-dir.js';
import { UserError, errorMessage } from '../core/util/errors.js';
import type { Logger } from '../core/util/logger.js';
import type { ArmSpec } from './run-request.js';

/**
 * Workloads that share tool, data shape (pgbench: scale and init options; sysbench: tables, table size,
 * script family), settings and cold start share one cluster (and data set) per arm: a cold-start workload's
 * restarts must not empty the buffers of a workload that runs warm.
 */
export interface DataSet {
  name: string;
  workloads: Workload[];
  maxClients: number;
}

export function groupDataSets(workloads: Workload[]): DataSet[] {
  const byKey = new Map<string, DataSet>();
  for (const w of workloads) {
    const key = JSON.stringify([
      w.tool,
      dataSetShape(w),
      Object.entries(w.settings).sort(),
      w.coldStart === true,
    ]);
    const existing = byKey.get(key);
    if (existing) {
      existing.workloads.push(w);
      existing.maxClients = Math.max(existing.maxClients, ...w.clients);
    } else {
      byKey.set(key, { name: w.name, workloads: [w], maxClients: Math.max(...w.clients) });
    }
  }
  return [...byKey.values()];
}

/** What setting up the clusters takes from the prepared run. */
export interface ClusterSetup {
  arms: readonly ArmSpec[];
  /** Each arm's `postgres --version`, in the order of `arms`, for the log. */
  serverVersions: readonly string[];
  /** Workloads with `cpus`: their server runs under the plan's server CPUs. */
  cpuPlans: ReadonlyMap<string, CpuPlan>;
  /** Each workload's driver: the first workload of a data set loads it. */
  drivers: ReadonlyMap<string, Driver>;
  runAs: RunAsUser | undefined;
  tmpDir: string | undefined;
  dataChecksums: boolean;
}

/** Restarts of one cluster after its server died, before the run stops. */
export const MAX_RESTARTS_PER_CLUSTER = 3;

/**
 * The clusters of one run, by arm label and data set. Every cluster created is kept here at once, so that
 * release() removes it even when the set-up fails half-way.
 */
export class RunClusters {
  private readonly byKey = new Map<string, PgCluster>();
  private readonly dataSetOf: Map<string, DataSet>;

  constructor(private readonly dataSets: readonly DataSet[]) {
    this.dataSetOf = new Map(dataSets.flatMap((d) => d.workloads.map((w) => [w.name, d] as const)));
  }

  /** The cluster on which `workload` runs for `arm`. */
  of(arm: string, workload: string): PgCluster {
    return this.byKey.get(clusterKey(arm, this.dataSetOf.get(workload)!.name))!;
  }

  /** initdb, start and load the data set, per data set and arm. */
  async setUp(setup: ClusterSetup, deps: ClusterDeps & { signal?: AbortSignal | undefined }): Promise<void> {
    const { logger } = deps;
    await logger.group('Setting up clusters', async () => {
      for (const dataSet of this.dataSets) {
        for (const [i, arm] of setup.arms.entries()) {
          deps.signal?.throwIfAborted();
          const w = dataSet.workloads[0]!;
          const label = this.dataSets.length > 1 ? `${arm.label}/${dataSet.name}` : arm.label;
          logger.info(`arm ${label}: initdb, start, load (${setup.serverVersions[i]!})`);
          const serverPrefix = setup.cpuPlans.get(w.name)?.serverPrefix;
          const conf = {
            maxClients: dataSet.maxClients,
            workloadSettings: coldStartSettings(w),
            armSettings: arm.settings,
          };
          await loadedCluster(
            armClusterSpec(arm, label, conf, setup, serverPrefix),
            setup.drivers.get(w.name)!,
            deps,
            (cluster) => this.byKey.set(clusterKey(arm.label, dataSet.name), cluster),
          );
        }
      }
    });
  }

  /** One hash over every cluster's postgresql.conf settings, recorded in the environment. */
  settingsHash(): string {
    const allSettings = [...this.byKey.entries()].map(([k, c]) => [k, settingsHash(c.settings)]);
    return createHash('sha256').update(JSON.stringify(allSettings)).digest('hex').slice(0, 16);
  }

  /** Stops and starts the servers of these arms that run these workloads (new postmaster, cold buffers). */
  async restart(arms: readonly string[], workloads: readonly string[], signal?: AbortSignal): Promise<void> {
    const sets = new Set(workloads.map((w) => this.dataSetOf.get(w)!.name));
    for (const arm of arms) {
      for (const set of sets) {
        signal?.throwIfAborted();
        const cluster = this.byKey.get(clusterKey(arm, set))!;
        await cluster.stop();
        await cluster.start();
      }
    }
  }

  /** Copies each server log into `logsDir` (when given) and removes every cluster; failures are warnings. */
  async release(logsDir: string | undefined, logger: Logger): Promise<void> {
    for (const cluster of this.byKey.values()) {
      try {
        if (logsDir) {
          await makeDirectory(logsDir);
          await copyFile(
            cluster.logFile,
            path.join(logsDir, `${cluster.spec.label.replace(/\//g, '-')}.server.log`),
          ).catch(() => {});
        }
        await cluster.destroy();
      } catch (e) {
        logger.warn(
          `arm ${cluster.spec.label}: cleanup failed: ${errorMessage(e)} (directory ${cluster.dir})`,
        );
      }
    }
  }
}

/**
 * A cluster of `arm`: its install, under --tmp-dir, run as the run-as user, with `conf` (the workload's
 * settings and the arm's, and whatever the caller adds). The run's clusters and the counted runs' own
 * servers (counted-runs.ts) are made the same way.
 */
export function armClusterSpec(
  arm: ArmSpec,
  label: string,
  conf: ClusterSpec['conf'],
  setup: Pick<ClusterSetup, 'runAs' | 'tmpDir' | 'dataChecksums'>,
  cpuPrefix?: string[],
): ClusterSpec {
  return {
    label,
    ...(cpuPrefix ? { cpuPrefix } : {}),
    binDir: arm.binDir,
    parentDir: setup.tmpDir,
    conf,
    runAs: setup.runAs,
    dataChecksums: setup.dataChecksums,
  };
}

/**
 * initdb, start and load the workload's data set with its driver. `keep` gets the cluster as soon as it
 * exists, so that whoever keeps it removes it even when the start or the load fails half-way.
 */
export async function loadedCluster(
  spec: ClusterSpec,
  driver: Pick<Driver, 'prepare'>,
  deps: ClusterDeps & { signal?: AbortSignal | undefined },
  keep: (cluster: PgCluster) => void,
): Promise<PgCluster> {
  const cluster = await PgCluster.create(spec, deps);
  keep(cluster);
  await cluster.start();
  await driver.prepare(cluster, deps.signal);
  return cluster;
}

/**
 * A cold-start workload's servers time their reads (track_io_timing on, for the read-time metric) unless
 * its settings say otherwise. Only theirs: timing every read costs a clock read each, and a cached workload
 * reads next to nothing.
 */
export function coldStartSettings(w: Pick<Workload, 'settings' | 'coldStart'>): Workload['settings'] {
  return w.coldStart ? { track_io_timing: 'on', ...w.settings } : w.settings;
}

function clusterKey(arm: string, dataSet: string): string {
  return `${arm}\u0000${dataSet}`;
}

/** A failed run whose server died says so, with the postmaster's pid and the server log's tail. */
export async function withServerDeath(cluster: PgCluster, out: RunOutcome): Promise<RunOutcome> {
  if (await cluster.isRunning()) return out;
  const pid = await cluster.postmasterPid();
  const reason = `${out.failureReason ?? 'failed'}; the server died (postmaster pid ${pid ?? '?'} is gone)`;
  return { ...out, failureReason: `${reason}; server log tail:\n${await cluster.logTail(15)}` };
}

/**
 * After a failed run: if the server died, say so with its log tail and start it again, up to
 * MAX_RESTARTS_PER_CLUSTER times; then the run stops with the reason.
 */
export async function reviveIfDown(cluster: PgCluster, warn: (m: string) => void): Promise<void> {
  if (await cluster.isRunning()) return;
  const logTail = await cluster.logTail(15);
  if (cluster.restarts >= MAX_RESTARTS_PER_CLUSTER) {
    throw new UserError(
      `arm ${cluster.spec.label}: the server died again after ${cluster.restarts} restarts; stopping the run ` +
        `(the samples so far are kept). Server log tail (${cluster.logFile}):\n${logTail}`,
    );
  }
  warn(
    `arm ${cluster.spec.label}: the server died during a run; restarting it (restart ${cluster.restarts + 1} of at most ${MAX_RESTARTS_PER_CLUSTER}). Log tail:\n${logTail}`,
  );
  await cluster.restartAfterCrash();
}
