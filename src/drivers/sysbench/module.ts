import type { DriverModule } from '../common/driver.js';
import { dataShape } from './command.js';
import { sysbenchDriver } from './driver.js';
import { sysbenchWorkloadSchema } from './workload.js';

export const sysbenchModule = {
  tool: 'sysbench',
  schema: sysbenchWorkloadSchema,
  // Its report's transactions, queries, average and --percentile latency (report-metrics.ts).
  records: ['tps', 'qps', 'latencyAvgMs', 'latencyPctMs'],
  create: (workload, deps) => sysbenchDriver({ workload, ...deps }),
  dataSetShape: dataShape,
} satisfies DriverModule<typeof sysbenchWorkloadSchema>;
