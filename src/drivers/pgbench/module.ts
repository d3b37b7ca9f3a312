import type { PgbenchWorkload } from './workload.js';
import type { DriverModule } from '../common/driver.js';
import { pgbenchDriver } from './driver.js';

export const pgbenchModule: DriverModule<PgbenchWorkload> = {
  create: (workload, deps) => pgbenchDriver({ workload, ...deps }),
  // pgbench -i builds the same tables for every builtin and script at one scale and init options.
  dataSetShape: (w) => [w.scale, w.init],
};
