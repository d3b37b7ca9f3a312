/**
 * The workload file schema (workloads/*.yml), composed of each registered tool's section
 * (src/drivers/<tool>/workload.ts, listed by registry.ts) told apart by `tool`. One zod schema is the source
 * of truth for validation, for the TypeScript types and for the JSON Schema that editors use (`pgperf schema`).
 */
import { z } from 'zod';
import { DRIVERS } from './registry.js';

export type { PgbenchWorkload } from './pgbench/pgbench-workload.js';
export type { SysbenchWorkload } from './sysbench/sysbench-workload.js';

/** Every workload file is one of the registered tools' sections, told apart by its `tool`. */
export const workloadSchema = DRIVERS.workloadSchema;

/** The variant schema for a tool, e.g. to list the keys a pgbench workload accepts. */
export const WORKLOAD_VARIANTS = DRIVERS.variants;

/** A workload as written in the file (defaults not yet applied). */
export type WorkloadInput = z.input<typeof workloadSchema>;
/** A validated workload of either tool; narrow on `tool`. */
export type Workload = z.output<typeof workloadSchema>;

/** The JSON Schema editors use to validate and complete workload files. */
export function workloadJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(workloadSchema, {
      io: 'input',
      unrepresentable: 'any',
      override: (ctx) => {
        // clients: the list, or "auto" (which the preprocess step turns into a list).
        const json = ctx.jsonSchema as Record<string, unknown>;
        if (
          json.type !== 'array' ||
          typeof json.description !== 'string' ||
          !json.description.includes('"auto"')
        )
          return;
        const { description, ...list } = json;
        for (const key of Object.keys(json)) delete json[key];
        Object.assign(json, { description, anyOf: [list, { type: 'string', const: 'auto' }] });
      },
    }),
    $id: 'https://github.com/pgperf/pgperf/workloads/workload.schema.json',
    title: 'pgperf workload',
  };
}
