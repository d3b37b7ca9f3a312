/**
 * The one place that knows which tools exist: each tool's folder exports a DriverModule, and this table
 * names it. The run loop asks the registry, never a tool folder; a third tool adds its folder and a line.
 */
import type { Workload } from './workload.js';
import type { Driver, DriverDeps, DriverModule } from './common/driver.js';
import { pgbenchModule } from './pgbench/module.js';
import { sysbenchModule } from './sysbench/module.js';

const DRIVERS: { [T in Workload['tool']]: DriverModule<Extract<Workload, { tool: T }>> } = {
  pgbench: pgbenchModule,
  sysbench: sysbenchModule,
};

function moduleOf(workload: Workload): DriverModule<Workload> {
  return DRIVERS[workload.tool] as DriverModule<Workload>;
}

/** The driver for a workload's tool. */
export function createDriver(workload: Workload, deps: DriverDeps): Driver {
  return moduleOf(workload).create(workload, deps);
}

/** The key under which workloads share a prepared data set. */
export function dataSetShape(workload: Workload): unknown {
  return moduleOf(workload).dataSetShape(workload);
}
