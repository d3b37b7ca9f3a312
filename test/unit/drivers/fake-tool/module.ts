import type { DriverModule } from '../../../../src/drivers/common/driver.js';
import { fakeDriver } from './driver.js';
import { fakeWorkloadSchema } from './workload.js';

export const fakeModule = {
  tool: 'fake',
  schema: fakeWorkloadSchema,
  create: (workload, deps) => fakeDriver(workload, deps),
  dataSetShape: () => 'nothing to load',
} satisfies DriverModule<typeof fakeWorkloadSchema>;
