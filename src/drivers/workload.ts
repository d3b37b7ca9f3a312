/**
 * The workload file schema (workloads/*.yml), composed of each tool's section (src/drivers/<tool>/workload.ts)
 * told apart by `tool`. One zod schema is the source of truth for validation, for the TypeScript types and for
 * the JSON Schema that editors use (`pgperf schema`). A third tool adds its section to the union below (and
 * its module to registry.ts).
 */
import { z } from 'zod';
import { pgbenchWorkloadSchema, type PgbenchWorkload } from './pgbench/workload.js';
import { sysbenchWorkloadSchema, type SysbenchWorkload } from './sysbench/workload.js';

export type { PgbenchWorkload, SysbenchWorkload };

/** Every workload file is one of these, told apart by its `tool`. */
export const workloadSchema = z.discriminatedUnion('tool', [pgbenchWorkloadSchema, sysbenchWorkloadSchema]);

/** The variant schema for a tool, e.g. to list the keys a pgbench workload accepts. */
export const WORKLOAD_VARIANTS = {
  pgbench: pgbenchWorkloadSchema,
  sysbench: sysbenchWorkloadSchema,
} as const;

/** A workload as written in the file (defaults not yet applied). */
export type WorkloadInput = z.input<typeof workloadSchema>;
/** A validated workload of either tool; narrow on `tool`. */
export type Workload = PgbenchWorkload | SysbenchWorkload;

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
