import type { SysbenchWorkload } from './workload.js';
import type { DriverModule } from '../common/driver.js';
import { dataShape } from './command.js';
import { sysbenchDriver } from './driver.js';

export const sysbenchModule: DriverModule<SysbenchWorkload> = {
  create: (workload, deps) => sysbenchDriver({ workload, ...deps }),
  dataSetShape: dataShape,
};
