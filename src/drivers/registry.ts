/**
 * The one place that knows which tools exist: each tool's folder (src/drivers/<tool>/) exports a module
 * (<tool>-module.ts: its workload section, the metrics it records, its driver, its data-set shape) and this list
 * names it. Everything else derives from the list: the workload schema and types (workload.ts), and so the
 * loader and the JSON Schema (`pgperf schema`, kept as workloads/workload.schema.json), the recorded metrics
 * (recorded-metrics.ts), and the run loop's driver lookup. A third tool adds its folder and a line here,
 * then regenerates workloads/workload.schema.json (docs/design.md, "Where to change what").
 */
import { composeDrivers } from './driver-set.js';
import { pgbenchModule } from './pgbench/pgbench-module.js';
import { sysbenchModule } from './sysbench/sysbench-module.js';

export const DRIVERS = composeDrivers([pgbenchModule, sysbenchModule]);

export const { createDriver, dataSetShape, listsStatements, scriptFiles, statementsOf } = DRIVERS;
