/**
 * Counted runs: a fixed number of transactions at a few clients, on a server of their own, outside the
 * rounds. The measurements that difference two run lengths or read counters over one run (the compare
 * pipeline's instruction, explain and plan phases) use them. The workload's driver runs them
 * (Driver.runTransactions); a tool whose driver cannot is refused before anything starts, and the servers
 * are made and loaded as the run's own clusters are (run-clusters.ts).
 */
import type { Driver, DriverDeps } from '../../drivers/common/driver.js';
import { createDriver } from '../../drivers/registry.js';
import type { Workload } from '../../drivers/workload.js';
import type { ClusterDeps, ClusterSpec, PgCluster } from '../../postgres/cluster/cluster.js';
import type { RunAsUser } from '../../postgres/cluster/run-as.js';
import { runnerAs, type ProcessRunner } from '../../machine/os/process.js';
import { memoryLogger, type Logger } from '../../core/util/logger.js';
import type { ArmSpec } from '../run-request.js';
import { armClusterSpec, loadedCluster, type ClusterSetup } from '../run-clusters.js';

/** A driver that runs counted runs. */
export type CountingDriver = Driver & Required<Pick<Driver, 'runTransactions'>>;

/** Runs nothing: a driver made only to be asked what it can do is never asked to run. */
const NO_RUNNER: ProcessRunner = {
  run: (command) => Promise.reject(new Error(`${command}: a driver made to be asked ran it`)),
};

/**
 * Whether the workload's tool runs fixed transaction counts. Its driver says so (making one runs nothing),
 * so the answer needs no client, no server and no build: it is asked before anything starts.
 */
export function countsTransactions(w: Workload): boolean {
  const deps: DriverDeps = {
    clientBinDir: '',
    cpuCount: 1,
    runner: NO_RUNNER,
    logger: memoryLogger(),
    searchPath: '',
  };
  return createDriver(w, deps).runTransactions !== undefined;
}

/** The client of a phase's counted runs: its driver, the runner it runs as, and its bin dir. */
export interface CountingClient {
  driver: CountingDriver;
  /** The runner the client runs as (the run-as user's, when there is one). */
  clientRunner: ProcessRunner;
  clientBinDir: string;
}

/**
 * The client of the counted runs: the client of `clientBinDir` (else the first arm's), run as the run-as
 * user when there is one, one CPU. Throws for a tool that cannot count (its workloads were refused before
 * anything started, so this is a bug).
 */
export function countingClient(
  w: Workload,
  req: { arms: readonly ArmSpec[]; clientBinDir?: string | undefined },
  deps: { runner: ProcessRunner; logger: Logger; runAs: RunAsUser | undefined },
): CountingClient {
  const clientRunner = deps.runAs ? runnerAs(deps.runner, deps.runAs) : deps.runner;
  const clientBinDir = req.clientBinDir ?? req.arms[0]!.binDir;
  const driver = createDriver(w, {
    clientBinDir,
    cpuCount: 1,
    runner: clientRunner,
    logger: deps.logger,
    searchPath: '',
    ...(deps.runAs ? { clientUser: deps.runAs } : {}),
  });
  if (!driver.runTransactions) throw new Error(`workload ${w.name}: tool ${w.tool} runs no counted runs`);
  return { driver: driver as CountingDriver, clientRunner, clientBinDir };
}

/** Where a phase's own servers live and who runs them: as the run's clusters. */
export type CountingSetup = Pick<ClusterSetup, 'tmpDir' | 'dataChecksums'> & { runAs: RunAsUser | undefined };

/** The spec of a phase's own server for `arm`, named "<arm>/<what>" in messages and file names. */
export function countingClusterSpec(
  arm: ArmSpec,
  what: string,
  conf: ClusterSpec['conf'],
  setup: CountingSetup,
): ClusterSpec {
  return armClusterSpec(arm, `${arm.label}/${what}`, conf, setup);
}

/**
 * A phase's own server for `arm`, started, with the workload's data set loaded by `driver`. `keep` gets it
 * as soon as it exists: the caller removes it, also when the start or the load fails.
 */
export function loadedCountingCluster(
  arm: ArmSpec,
  what: string,
  conf: ClusterSpec['conf'],
  driver: Pick<Driver, 'prepare'>,
  setup: CountingSetup,
  deps: ClusterDeps & { signal?: AbortSignal | undefined },
  keep: (cluster: PgCluster) => void,
): Promise<PgCluster> {
  return loadedCluster(countingClusterSpec(arm, what, conf, setup), driver, deps, keep);
}
