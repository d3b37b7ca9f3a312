import type { Workload } from '../config/workload-schema.js';
import type { Logger } from '../util/logger.js';
import type { ProcessRunner } from '../util/process.js';
import type { Driver } from './driver.js';
import { pgbenchDriver } from './pgbench/driver.js';
import { sysbenchDriver } from './sysbench/driver.js';

export interface DriverDeps {
  /** Bin dir of the pgbench that drives every arm (sysbench is found on the PATH). */
  clientBinDir: string;
  cpuCount: number;
  runner: ProcessRunner;
  logger: Logger;
}

/** The driver for a workload's tool. */
export function createDriver(workload: Workload, deps: DriverDeps): Driver {
  switch (workload.tool) {
    case 'pgbench':
      return pgbenchDriver({ workload, ...deps });
    case 'sysbench':
      return sysbenchDriver({ workload, cpuCount: deps.cpuCount, runner: deps.runner, logger: deps.logger });
  }
}
