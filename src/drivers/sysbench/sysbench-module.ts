import type { DriverModule } from '../common/driver.js';
import { dataShape } from './sysbench-command.js';
import { sysbenchDriver } from './sysbench-driver.js';
import { sysbenchWorkloadSchema } from './sysbench-workload.js';

export const sysbenchModule = {
  tool: 'sysbench',
  schema: sysbenchWorkloadSchema,
  // Its report's transactions, queries, average and --percentile latency (report-metrics.ts).
  records: ['tps', 'qps', 'latencyAvgMs', 'latencyPctMs'],
  create: (workload, deps) => sysbenchDriver({ workload, ...deps }),
  dataSetShape: dataShape,
} satisfies DriverModule<typeof sysbenchWorkloadSchema>;
