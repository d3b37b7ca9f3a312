/**
 * The one place that knows which tools exist: each tool's folder exports a module (its workload section,
 * its driver, its data-set shape) and this list names it. The workload schema and types (workload.ts) and
 * the run loop's driver lookup derive from it; a third tool adds its folder and a line here.
 */
import { composeDrivers } from './driver-set.js';
import { pgbenchModule } from './pgbench/module.js';
import { sysbenchModule } from './sysbench/module.js';

export const DRIVERS = composeDrivers([pgbenchModule, sysbenchModule]);

export const { createDriver, dataSetShape } = DRIVERS;
