import type { DriverModule } from '../common/driver.js';
import { pgbenchDriver } from './pgbench-driver.js';
import { pgbenchStatements } from './statements.js';
import { pgbenchWorkloadSchema } from './pgbench-workload.js';

export const pgbenchModule = {
  tool: 'pgbench',
  schema: pgbenchWorkloadSchema,
  // Its final report's tps and latency lines (report-metrics.ts); percentiles only from the transaction log.
  records: ['tps', 'latencyAvgMs', 'latencyStddevMs'],
  create: (workload, deps) => pgbenchDriver({ workload, ...deps }),
  // pgbench -i builds the same tables for every builtin and script at one scale and init options.
  dataSetShape: (w) => [w.scale, w.init],
  statements: pgbenchStatements,
  scriptFiles: (w) => (w.scripts ?? []).map((s) => s.file),
} satisfies DriverModule<typeof pgbenchWorkloadSchema>;
