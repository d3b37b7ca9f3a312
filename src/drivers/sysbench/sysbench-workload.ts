/**
 * The sysbench section of the workload file schema: the OLTP script, tables, random distribution,
 * prepared-statement mode, percentile, the error budget and the allow-listed extra options, beside the
 * fields every tool shares.
 */
import { z } from 'zod';
import { SYSBENCH_ROWS, SYSBENCH_TABLES, SYSBENCH_TABLE_SIZE, rangeText } from '../../core/bounds.js';
import {
  boundedInt,
  clientsField,
  commonWorkloadFields,
  descriptionField,
  nameField,
  refineClients,
  refineSettingsAndArgs,
} from '../common/workload-fields.js';

/** The sysbench 1.0 OLTP Lua scripts pgperf runs (shipped in /usr/share/sysbench). */
export const SYSBENCH_SCRIPTS = [
  'oltp_read_only',
  'oltp_write_only',
  'oltp_read_write',
  'oltp_point_select',
  'oltp_update_index',
  'oltp_update_non_index',
  'oltp_insert',
] as const;
/** sysbench 1.0.x --rand-type values. */
export const SYSBENCH_RAND_TYPES = ['uniform', 'gaussian', 'special', 'pareto'] as const;
export const SYSBENCH_PS_MODES = ['auto', 'disable'] as const;

/**
 * sysbench options a workload may add: the OLTP scripts' own knobs (oltp_common.lua). Value: 'count'
 * takes a non-negative integer, 'bool' is on or off (alone it means on).
 */
export const SYSBENCH_EXTRA_OPTIONS: Record<string, 'count' | 'bool'> = {
  '--range-size': 'count',
  '--point-selects': 'count',
  '--simple-ranges': 'count',
  '--sum-ranges': 'count',
  '--order-ranges': 'count',
  '--distinct-ranges': 'count',
  '--index-updates': 'count',
  '--non-index-updates': 'count',
  '--delete-inserts': 'count',
  '--range-selects': 'bool',
  '--skip-trx': 'bool',
  '--secondary': 'bool',
  '--create-secondary': 'bool',
};

/** sysbench options that fields of the workload or pgperf itself set, and where to set them instead. */
const SYSBENCH_OWNED_OPTIONS: Record<string, string> = {
  '--threads': 'the "clients" field (one cell per thread count)',
  '--time': 'the "duration" field',
  '--tables': 'the "tables" field',
  '--table-size': 'the "tableSize" field',
  '--rand-type': 'the "randType" field',
  '--db-ps-mode': 'the "psMode" field',
  '--percentile': 'the "percentile" field',
  '--rand-seed': 'pgperf (the same seed for every arm within a round)',
  '--report-interval': 'pgperf (always 1 second)',
};

export const sysbenchWorkloadSchema = z
  .strictObject({
    name: nameField,
    description: descriptionField,
    tool: z.literal('sysbench').describe('The client that drives the workload.'),
    script: z
      .enum(SYSBENCH_SCRIPTS)
      .describe('The sysbench OLTP Lua script (run as `sysbench SCRIPT ... run`).'),
    tables: boundedInt(SYSBENCH_TABLES)
      .default(1)
      .describe(`sysbench --tables: number of sbtestN tables, ${rangeText(SYSBENCH_TABLES)}.`),
    tableSize: boundedInt(SYSBENCH_TABLE_SIZE)
      .default(10000)
      .describe(
        `sysbench --table-size: rows per table, ${rangeText(SYSBENCH_TABLE_SIZE)}; tables x tableSize at most ${SYSBENCH_ROWS.max}.`,
      ),
    clients: clientsField(
      'thread count',
      'The thread sweep, sysbench --threads (one connection per thread): one cell per entry.',
    ),
    randType: z
      .enum(SYSBENCH_RAND_TYPES)
      .default('uniform')
      .describe('sysbench --rand-type, always passed: its default is special in 1.0.x and uniform later.'),
    psMode: z
      .enum(SYSBENCH_PS_MODES)
      .default('auto')
      .describe('sysbench --db-ps-mode: auto = server-side prepared statements, disable = plain queries.'),
    percentile: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(95)
      .describe('sysbench --percentile: the latency percentile reported (metric latencyPctMs).'),
    maxIgnoredErrorsPct: z
      .number()
      .nonnegative()
      .max(100)
      .default(1)
      .describe(
        'A run whose ignored errors (deadlocks, duplicate keys, serialization failures that sysbench rolls back and retries) exceed this percentage of its transaction attempts is recorded as failed.',
      ),
    extraArgs: z
      .array(z.string())
      .default([])
      .describe('Extra sysbench OLTP options from an allow-list, e.g. ["--range-size=10", "--skip-trx=on"].'),
    ...commonWorkloadFields,
  })
  .superRefine((w, ctx) => {
    refineClients(w, ctx);
    if (w.tables * w.tableSize > SYSBENCH_ROWS.max) {
      ctx.addIssue({
        code: 'custom',
        path: ['tableSize'],
        message: `tables x tableSize (${w.tables} x ${w.tableSize}) is more than ${SYSBENCH_ROWS.max} rows in all: fewer tables or rows per table`,
      });
    }
    refineSettingsAndArgs(w, ctx, checkSysbenchExtraArg);
  });

/**
 * Why an extra sysbench option is not allowed, or undefined when it is. sysbench treats "_" and "-" in
 * option names alike, so the checks do too.
 */
export function checkSysbenchExtraArg(arg: string): string | undefined {
  const [written = '', value] = arg.split(/=(.*)/s, 2);
  const name = written.replace(/_/g, '-');
  const owner = SYSBENCH_OWNED_OPTIONS[name];
  if (owner) return `"${written}" is set by ${owner}, not in extraArgs`;
  const kind = SYSBENCH_EXTRA_OPTIONS[name];
  const allowed = Object.keys(SYSBENCH_EXTRA_OPTIONS).join(', ');
  if (!kind) return `"${arg}" is not an allowed sysbench option (allowed: ${allowed})`;
  if (kind === 'count' && !/^\d+$/.test(value ?? '')) {
    return `"${written}" needs a non-negative integer, written as ${written}=N`;
  }
  if (kind === 'bool' && value !== undefined && value !== 'on' && value !== 'off') {
    return `"${written}" is on or off, written as ${written}=on or ${written}=off`;
  }
  return undefined;
}

/** A validated sysbench workload with defaults applied. */
export type SysbenchWorkload = z.output<typeof sysbenchWorkloadSchema>;
