/** The fake tool's module: what its line in src/drivers/registry.ts lists (third-tool.test.ts adds it). */
import type { DriverModule } from '../../../../src/drivers/common/driver.js';
import { fakeDriver } from './driver.js';
import { fakeWorkloadSchema } from './workload.js';

export const fakeModule = {
  tool: 'fake',
  schema: fakeWorkloadSchema,
  records: ['tps', 'latencyAvgMs'],
  create: (workload, deps) => fakeDriver(workload, deps),
  dataSetShape: () => 'nothing to load',
} satisfies DriverModule<typeof fakeWorkloadSchema>;
