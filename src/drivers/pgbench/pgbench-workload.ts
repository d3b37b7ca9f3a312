/**
 * The pgbench section of the workload file schema: builtin or custom scripts, query mode, scale, threads,
 * init options and the allow-listed extra options, beside the fields every tool shares.
 */
import { z } from 'zod';
import { PARTITIONS, SCALE, THREADS, rangeText } from '../../core/bounds.js';
import {
  boundedInt,
  clientsField,
  commonWorkloadFields,
  descriptionField,
  nameField,
  positiveInt,
  refineClients,
  refineSettingsAndArgs,
} from '../common/workload-fields.js';

export const BUILTIN_SCRIPTS = ['tpcb-like', 'simple-update', 'select-only'] as const;
export const QUERY_MODES = ['simple', 'extended', 'prepared'] as const;

/**
 * pgbench options a workload may add. Everything else (clients, threads, duration, query mode,
 * scripts, connection, seeds, progress) is pgperf's to set, so that arms stay comparable.
 * Value: whether the option takes a value.
 */
export const PGBENCH_EXTRA_OPTIONS: Record<string, 'flag' | 'value'> = {
  '--max-tries': 'value',
  '--failures-detailed': 'flag',
  '--verbose-errors': 'flag',
  '--rate': 'value',
  '--latency-limit': 'value',
  '--connect': 'flag',
  '--define': 'value',
  '--report-per-command': 'flag',
  '--exit-on-abort': 'flag',
};

const scriptFile = z.strictObject({
  file: z.string().min(1).describe('Path of a pgbench script, relative to the workload file.'),
  weight: positiveInt.default(1).describe('Relative weight (pgbench -f file@weight).'),
});

const initOptions = z.strictObject({
  steps: z
    .string()
    .regex(/^[dtgGvpf]+$/, 'init steps made of the letters d t g G v p f')
    .default('dtgvp')
    .describe('pgbench -I init steps (d, t, g, G, v, p, f).'),
  partitions: boundedInt(PARTITIONS)
    .default(0)
    .describe(`--partitions=N for pgbench_accounts (0 = not partitioned), ${rangeText(PARTITIONS)}.`),
  fillfactor: z.number().int().min(10).max(100).default(100).describe('--fillfactor for the pgbench tables.'),
  unloggedTables: z.boolean().default(false).describe('--unlogged-tables.'),
});

export const pgbenchWorkloadSchema = z
  .strictObject({
    name: nameField,
    description: descriptionField,
    tool: z.literal('pgbench').describe('The client that drives the workload.'),
    builtin: z.enum(BUILTIN_SCRIPTS).optional().describe('A builtin pgbench script; exclusive with scripts.'),
    scripts: z
      .array(scriptFile)
      .min(1)
      .optional()
      .describe('Custom pgbench scripts with weights; exclusive with builtin.'),
    pipeline: z
      .number()
      .int()
      .min(2)
      .max(100)
      .optional()
      .describe('Run builtin select-only as pipelines of this many queries (PG14+).'),
    queryMode: z.enum(QUERY_MODES).default('prepared').describe('pgbench -M.'),
    scale: boundedInt(SCALE)
      .default(10)
      .describe(`pgbench scale factor (100,000 pgbench_accounts rows per unit), ${rangeText(SCALE)}.`),
    clients: clientsField('client count', 'The client-count sweep: one cell per entry.'),
    threads: z
      .union([z.enum(['auto', 'clients']), boundedInt(THREADS)])
      .default('auto')
      .describe(
        `pgbench -j: auto = min(clients, CPU count), clients = one thread per client, or a number ${rangeText(THREADS)}.`,
      ),
    init: initOptions
      .default({ steps: 'dtgvp', partitions: 0, fillfactor: 100, unloggedTables: false })
      .describe('Options of the data load (pgbench -i).'),
    extraArgs: z
      .array(z.string())
      .default([])
      .describe('Extra pgbench options from an allow-list, e.g. ["--max-tries=3", "--rate=500"].'),
    ...commonWorkloadFields,
  })
  .superRefine((w, ctx) => {
    if ((w.builtin === undefined) === (w.scripts === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: w.builtin === undefined ? [] : ['scripts'],
        message: 'set exactly one of "builtin" (tpcb-like, simple-update, select-only) or "scripts"',
      });
    }
    refineClients(w, ctx);
    if (w.pipeline !== undefined) {
      if (w.builtin !== 'select-only') {
        ctx.addIssue({
          code: 'custom',
          path: ['pipeline'],
          message: 'pipeline applies to builtin select-only; put \\startpipeline in custom scripts instead',
        });
      }
      if (w.queryMode === 'simple') {
        ctx.addIssue({
          code: 'custom',
          path: ['queryMode'],
          message: 'pipelining needs queryMode extended or prepared (pgbench aborts with simple)',
        });
      }
    }
    refineSettingsAndArgs(w, ctx, checkExtraArg);
  });

/** Why an extra pgbench option is not allowed, or undefined when it is. */
export function checkExtraArg(arg: string): string | undefined {
  const [name = '', value] = arg.split(/=(.*)/s, 2);
  const kind = PGBENCH_EXTRA_OPTIONS[name];
  const allowed = Object.keys(PGBENCH_EXTRA_OPTIONS).join(', ');
  if (!kind) return `"${arg}" is not an allowed pgbench option (allowed: ${allowed})`;
  if (kind === 'value' && !value) return `"${name}" needs a value, written as ${name}=VALUE`;
  if (kind === 'flag' && value !== undefined) return `"${name}" takes no value`;
  return undefined;
}

/** A validated pgbench workload with defaults applied; paths in `scripts` are absolute. */
export type PgbenchWorkload = z.output<typeof pgbenchWorkloadSchema>;
