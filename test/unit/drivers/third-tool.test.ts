/**
 * A third tool is one folder (fake-tool/: its workload section, its driver, its module) and one line in
 * the registry's list: composed with the shipped tools, its workload files validate (defaults applied,
 * mistakes named), the JSON Schema offers it, and the driver lookup hands out its driver; the shipped
 * tools' files are unaffected.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { composeDrivers } from '../../../src/drivers/driver-set.js';
import { pgbenchModule } from '../../../src/drivers/pgbench/module.js';
import { sysbenchModule } from '../../../src/drivers/sysbench/module.js';
import { memoryLogger } from '../../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../../src/machine/os/process.js';
import { fakeModule } from './fake-tool/module.js';

// The registry's list with one more line.
const drivers = composeDrivers([pgbenchModule, sysbenchModule, fakeModule]);
const deps = {
  clientBinDir: '/opt/fake/bin',
  cpuCount: 2,
  runner: nodeProcessRunner,
  logger: memoryLogger(),
  searchPath: '',
};

describe('a third tool by one folder and one registry line', () => {
  it('validates its workload files with defaults, and names what is wrong in them', () => {
    const parsed = drivers.workloadSchema.parse({ name: 'f', tool: 'fake', clients: [1, 4] });
    expect(parsed).toMatchObject({ tool: 'fake', tps: 1000, clients: [1, 4], rounds: expect.any(Number) });
    const bad = drivers.workloadSchema.safeParse({ name: 'f', tool: 'fake', clients: [1], tps: -1 });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toContain('tps');
    expect(drivers.workloadSchema.safeParse({ name: 'f', tool: 'nosuch', clients: [1] }).success).toBe(false);
  });

  it('leaves the shipped tools as they were', () => {
    const pgbench = drivers.workloadSchema.parse({
      name: 'p',
      tool: 'pgbench',
      builtin: 'select-only',
      clients: [1],
    });
    expect(pgbench.tool).toBe('pgbench');
    expect(Object.keys(drivers.variants)).toEqual(['pgbench', 'sysbench', 'fake']);
  });

  it('is offered by the JSON Schema editors use', () => {
    const json = JSON.stringify(
      z.toJSONSchema(drivers.workloadSchema, { io: 'input', unrepresentable: 'any' }),
    );
    expect(json).toContain('"const":"fake"');
    expect(json).toContain('"const":"pgbench"');
  });

  it('hands out its driver and data-set shape for its workloads', async () => {
    const workload = drivers.workloadSchema.parse({ name: 'f', tool: 'fake', clients: [2], tps: 500 });
    const driver = drivers.createDriver(workload, deps);
    expect(await driver.client()).toEqual({ tool: 'fake', binDir: '/opt/fake/bin', version: 'fake 1.0' });
    const outcome = await driver.run({} as never, { clients: 2, durationS: 1, seed: 1 });
    expect(outcome.metrics.tps).toBe(1000);
    expect(drivers.dataSetShape(workload)).toBe('nothing to load');
    const pgbench = drivers.workloadSchema.parse({
      name: 'p',
      tool: 'pgbench',
      builtin: 'select-only',
      clients: [1],
    });
    expect(drivers.dataSetShape(pgbench)).toEqual(pgbenchModule.dataSetShape(pgbench as never));
  });
});
