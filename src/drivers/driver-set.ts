/**
 * What the list of tool modules yields: the workload file schema (each tool's section, told apart by
 * `tool`), the variant of each tool, the metrics a workload's samples always carry, and the driver for a
 * workload. registry.ts composes the shipped tools; test/unit/drivers/third-tool.test.ts adds a fake one to
 * that list to show a third tool needs nothing else.
 */
import { z } from 'zod';
import type { Driver, DriverDeps, DriverModule, WorkloadStatement } from './common/driver.js';
import type { MetricName } from '../core/results/metrics.js';

/** A tool module whose workload section can take part in the union (a zod object with a `tool` literal). */
export type ToolModule = DriverModule<z.core.$ZodTypeDiscriminable & z.ZodType<{ tool: string }>>;

type SchemasOf<M extends readonly ToolModule[]> = { -readonly [K in keyof M]: M[K]['schema'] };

export function composeDrivers<const M extends readonly [ToolModule, ...ToolModule[]]>(modules: M) {
  const schemas = modules.map((m) => m.schema) as unknown as SchemasOf<M>;
  const workloadSchema = z.discriminatedUnion('tool', schemas);
  type Workload = z.output<typeof workloadSchema>;
  const byTool = new Map<string, ToolModule>(modules.map((m) => [m.tool, m]));
  const moduleOf = (workload: Workload): ToolModule => {
    const found = byTool.get(workload.tool);
    if (!found) throw new Error(`no driver for tool ${JSON.stringify(workload.tool)}`);
    return found;
  };
  return {
    /** The modules, in the order given. */
    modules,
    workloadSchema,
    /** The variant schema of each tool, e.g. to list the keys a pgbench workload accepts. */
    variants: Object.fromEntries(modules.map((m) => [m.tool, m.schema])) as Record<
      string,
      M[number]['schema']
    >,
    /** The metrics every sample of a workload's tool carries (its module's `records`). */
    records: (workload: Workload): readonly MetricName[] => moduleOf(workload).records,
    /** The driver for a workload's tool. */
    createDriver: (workload: Workload, deps: DriverDeps): Driver => moduleOf(workload).create(workload, deps),
    /** The key under which workloads of one tool share a prepared data set. */
    dataSetShape: (workload: Workload): unknown => moduleOf(workload).dataSetShape(workload),
    /** The statements of a workload whose tool can list them (what the plan phases explain), else undefined. */
    statementsOf: (workload: Workload): Promise<WorkloadStatement[]> | undefined =>
      moduleOf(workload).statements?.(workload),
    /** The script files of its own a workload runs (none for a tool without them). */
    scriptFiles: (workload: Workload): readonly string[] => moduleOf(workload).scriptFiles?.(workload) ?? [],
    /** Whether a workload's tool can list its statements (without reading them). */
    listsStatements: (workload: Workload): boolean => moduleOf(workload).statements !== undefined,
  };
}
