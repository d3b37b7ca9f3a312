/**
 * A third tool is one folder and one line in the registry's list. This file adds the fake tool (fake-tool/:
 * its workload section, its driver, its module) to the list of src/drivers/registry.ts, as that line would,
 * and changes nothing else: the production modules that read the registry then load and validate its
 * workload files (defaults applied, mistakes named by file, line and field), know which metrics its
 * samples carry before a run, offer it in the JSON Schema (`pgperf schema`), and hand out its driver; its
 * folder, placed at src/drivers/fake/, passes the layer check with no line in scripts/layers.mjs. Without
 * the registration (drop fakeModule from the list below) the tests of its workloads, metrics, schema and
 * driver fail.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import * as registry from '../../../src/drivers/registry.js';
import { loadWorkloadFile, parseWorkload } from '../../../src/drivers/load-workload.js';
import { checkRecordable, recordedMetrics } from '../../../src/drivers/recorded-metrics.js';
import { workloadJsonSchema } from '../../../src/drivers/workload.js';
import { schemaCommand } from '../../../src/adapters/cli/commands/schema.js';
import { STEADY_METRICS } from '../../../src/core/results/metrics.js';
import { memoryLogger } from '../../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../../src/machine/os/process.js';
// @ts-expect-error: a plain .mjs script without type declarations
import { checkLayers as checkLayersUntyped, importsIn, src } from '../../../scripts/check-layers.mjs';
import { fakeModule } from './fake-tool/module.js';

// The registry's list with one more line; every export of registry.ts is made from that list.
vi.mock('../../../src/drivers/registry.js', async (importOriginal) => {
  const shipped = await importOriginal<typeof import('../../../src/drivers/registry.js')>();
  const { composeDrivers } = await import('../../../src/drivers/driver-set.js');
  const { fakeModule } = await import('./fake-tool/module.js');
  const DRIVERS = composeDrivers([...shipped.DRIVERS.modules, fakeModule]);
  const { createDriver, dataSetShape, listsStatements, scriptFiles, statementsOf } = DRIVERS;
  return { ...shipped, DRIVERS, createDriver, dataSetShape, listsStatements, scriptFiles, statementsOf };
});

type Json = Record<string, unknown>;
/** The fake's workloads are not in the shipped Workload type: they reach the production code as values. */
type AnyWorkload = Parameters<typeof recordedMetrics>[0];

const dir = await mkdtemp(path.join(os.tmpdir(), 'pgperf-third-tool-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

async function fakeWorkload(yaml = ''): Promise<AnyWorkload> {
  const file = path.join(dir, 'fake.yml');
  await writeFile(file, `name: fake\ntool: fake\nclients: [1, 4]\n${yaml}`);
  return loadWorkloadFile(file);
}

describe('a third tool by one folder and one registry line', () => {
  it('is the last of the registry list, and every export of the registry follows the list', () => {
    expect(registry.DRIVERS.modules.map((m) => m.tool)).toEqual(['pgbench', 'sysbench', 'fake']);
    const composed = registry.DRIVERS as unknown as Json;
    for (const [name, value] of Object.entries(registry)) {
      if (name !== 'DRIVERS') expect(value, `registry.${name}`).toBe(composed[name]);
    }
  });

  it('has its workload files loaded with their defaults', async () => {
    expect(await fakeWorkload()).toMatchObject({
      name: 'fake',
      tool: 'fake',
      tps: 1000,
      clients: [1, 4],
      warmup: 10,
      metrics: ['tps'],
    });
  });

  it.each([
    ['a bad value of its own field', 'tps: -1\n', /^w\.yml:4:6: tps: expected a number > 0, got -1$/],
    [
      'an unknown key, listing its keys and whose field it is',
      'builtin: select-only\n',
      /^w\.yml:4:1: unknown key "builtin" \(expected one of: name, description, tool, tps, clients, .*\); builtin is a pgbench field$/,
    ],
    ['a shared field out of range', 'rounds: 0\n', /^w\.yml:4:9: rounds: expected a number > 0, got 0$/],
  ])('names what is wrong in its workload files: %s', (_name, yaml, message) => {
    expect(() => parseWorkload(`name: f\ntool: fake\nclients: [1]\n${yaml}`, 'w.yml')).toThrow(message);
  });

  it('is one of the tools an unknown tool is told about', () => {
    expect(() => parseWorkload('name: f\ntool: nosuch\nclients: [1]\n', 'w.yml')).toThrow(
      /tool: expected one of "pgbench", "sysbench", "fake", got "nosuch"/,
    );
  });

  it('has the metrics its module records known before a run, and refuses a --metric it cannot record', async () => {
    const w = await fakeWorkload('metrics: [tps, p95]\n');
    expect(recordedMetrics(w)).toEqual(['tps', 'latencyAvgMs', ...STEADY_METRICS, 'latencyP95Ms']);
    expect(() => checkRecordable([w], 'latencyAvgMs')).not.toThrow();
    expect(() => checkRecordable([w], 'qps')).toThrow(
      /^--metric qps: workload fake \(fake\) does not record QPS; it records tps, latencyAvgMs, /,
    );
  });

  it('is offered by the JSON Schema `pgperf schema` prints, which workloads/workload.schema.json then lacks', async () => {
    let printed = '';
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      printed += String(chunk);
      return true;
    });
    try {
      await schemaCommand().parseAsync([], { from: 'user' });
    } finally {
      write.mockRestore();
    }
    const json = JSON.parse(printed) as Json & { oneOf: Json[] };
    expect(json).toEqual(workloadJsonSchema());
    const toolOf = (variant: Json) => (variant.properties as { tool: { const: string } }).tool.const;
    expect(json.oneOf.map(toolOf)).toEqual(['pgbench', 'sysbench', 'fake']);
    expect(Object.keys(json.oneOf[2]!.properties as Json)).toEqual(
      expect.arrayContaining(['name', 'tool', 'tps', 'clients', 'rounds', 'metrics']),
    );
    // The file editors use is generated from the shipped registry, so a new tool regenerates it (pgperf
    // schema > workloads/workload.schema.json; workload-schema.test.ts fails until then).
    const onDisk = JSON.parse(
      await readFile(new URL('../../../workloads/workload.schema.json', import.meta.url), 'utf8'),
    ) as { oneOf: Json[] };
    expect(onDisk.oneOf.map(toolOf)).toEqual(['pgbench', 'sysbench']);
  });

  it('hands out its driver and data-set shape for its workloads, and the driver records what the module says', async () => {
    const workload = await fakeWorkload('tps: 500\n');
    const driver = registry.createDriver(workload, {
      clientBinDir: '/opt/fake/bin',
      cpuCount: 2,
      runner: nodeProcessRunner,
      logger: memoryLogger(),
      searchPath: '',
    });
    expect(await driver.client()).toEqual({ tool: 'fake', binDir: '/opt/fake/bin', version: 'fake 1.0' });
    const outcome = await driver.run({} as never, { clients: 2, durationS: 1, seed: 1 });
    expect(outcome.metrics.tps).toBe(1000);
    expect(Object.keys(outcome.metrics).sort()).toEqual([...fakeModule.records].sort());
    expect(registry.dataSetShape(workload)).toBe('nothing to load');
  });

  it('leaves the shipped tools as they were', async () => {
    const shipped = await vi.importActual<typeof registry>('../../../src/drivers/registry.js');
    expect(shipped.DRIVERS.modules.map((m) => m.tool)).toEqual(['pgbench', 'sysbench']);
    for (const [text, records] of [
      [
        'name: p\ntool: pgbench\nbuiltin: select-only\nclients: [1]\nmetrics: [p99]\n',
        ['tps', 'latencyAvgMs', 'latencyStddevMs', ...STEADY_METRICS, 'latencyP99Ms'],
      ],
      [
        'name: s\ntool: sysbench\nscript: oltp_read_only\nclients: [1]\n',
        ['tps', 'qps', 'latencyAvgMs', 'latencyPctMs', ...STEADY_METRICS],
      ],
    ] as const) {
      const w = parseWorkload(text, 'w.yml');
      expect(w).toEqual(shipped.DRIVERS.workloadSchema.parse(w));
      expect(recordedMetrics(w)).toEqual(records);
      expect(registry.dataSetShape(w)).toEqual(shipped.dataSetShape(w));
    }
  });
});

describe('the layer check of a third tool', () => {
  const checkLayers = checkLayersUntyped as (graph: Map<string, string[]>) => string[];
  const imports = importsIn as (text: string, file: string) => string[];
  const fakeDir = new URL('./fake-tool/', import.meta.url).pathname;
  const placed = path.join(src as string, 'drivers', 'fake');

  /** The fake tool's files as src/drivers/fake/ would hold them: its imports of src/drivers/ made relative. */
  async function fakeFolder(edit = (_file: string, text: string) => text): Promise<Map<string, string[]>> {
    const graph = new Map<string, string[]>();
    for (const f of await readdir(fakeDir)) {
      const text = (await readFile(path.join(fakeDir, f), 'utf8')).replaceAll(
        "'../../../../src/drivers/",
        "'../",
      );
      graph.set(path.join(placed, f), imports(edit(f, text), path.join(placed, f)));
    }
    return graph;
  }

  it('passes with no line in scripts/layers.mjs: a folder under src/drivers/ is a tool room', async () => {
    const graph = await fakeFolder();
    expect(graph.get(path.join(placed, 'module.ts'))).toEqual([
      path.join(src as string, 'drivers/common/driver.ts'),
      path.join(placed, 'driver.ts'),
      path.join(placed, 'workload.ts'),
    ]);
    expect(checkLayers(graph)).toEqual([]);
  });

  it("names an import of another tool's folder, and an import of the tool from below it", async () => {
    const graph = await fakeFolder((f, text) =>
      f === 'driver.ts' ? `${text}import { measureArgs } from '../pgbench/pgbench-command.js';\n` : text,
    );
    graph.set(path.join(src as string, 'drivers/common/shared.ts'), [path.join(placed, 'driver.ts')]);
    expect(checkLayers(graph)).toEqual([
      'src/drivers/fake/driver.ts imports src/drivers/pgbench/pgbench-command.ts: src/drivers/pgbench is not below src/drivers/fake',
      'src/drivers/common/shared.ts imports src/drivers/fake/driver.ts: src/drivers/fake is not below src/drivers/common',
    ]);
  });
});
