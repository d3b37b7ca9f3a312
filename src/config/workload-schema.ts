/**
 * The workload file schema (workloads/*.yml). One zod schema is the source of truth for validation,
 * for the TypeScript types and for the JSON Schema that editors use (`pgperf schema`). A workload is
 * one of two variants, told apart by `tool`: pgbench or sysbench. Fields that mean the same thing in
 * both (clients, duration, warmup, rounds, settings, ...) have the same name and definition.
 */
import os from 'node:os';
import { z } from 'zod';
import { SETTING_NAME, settingProblem } from './settings.js';
import { autoClientSweep } from '../machine/client-sweep.js';
import { DEFAULT_GATED_METRICS, GATED_METRIC_NAMES, type GatedMetricName } from '../results/metrics.js';

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

/** Settings pgperf owns (see settings.ts); kept here for the schema's users. */
export { RESERVED_SETTINGS } from './settings.js';

const positiveInt = z.number().int().positive();
const nonNegativeInt = z.number().int().nonnegative();
const settingName = z.string().regex(SETTING_NAME, 'a setting name like shared_buffers');
const settingValue = z.union([z.string(), z.number(), z.boolean()]);

// Fields that mean the same in every variant; each variant lists them in its own order.
const nameField = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" and "-"')
  .describe('Unique name, used in reports and results.');
const descriptionField = z.string().default('').describe('What the workload shows and why.');
const durationField = positiveInt.default(60).describe('Seconds per measured run.');
const warmupField = nonNegativeInt
  .default(10)
  .describe('Seconds of the uncounted warm-up run per arm and cell (0 = none).');
const roundsField = positiveInt.default(5).describe('Rounds: every cell runs every arm once per round.');
const settingsField = z
  .record(settingName, settingValue)
  .default({})
  .describe('postgresql.conf overrides, applied to every arm alike.');
const vacuumField = z
  .boolean()
  .default(true)
  .describe('VACUUM before each measured run, so dead rows do not carry over.');
const checkpointField = z
  .boolean()
  .default(true)
  .describe('CHECKPOINT before each measured run, so dirty buffers do not.');
const metricsField = z
  .array(z.enum(Object.keys(GATED_METRIC_NAMES) as [GatedMetricName, ...GatedMetricName[]]))
  .min(1, 'at least one metric')
  .default([...DEFAULT_GATED_METRICS])
  .refine((m) => new Set(m).size === m.length, 'each metric at most once')
  .describe(
    'The metrics whose change gates the verdict: tps, latency-avg, p95, p99 (latencies: lower is better). All of them, over every cell, form one Holm family.',
  );
const thresholdField = z
  .number()
  .positive()
  .max(100)
  .optional()
  .describe("Practical threshold in percent for this workload's verdicts (default: the run's).");
/**
 * `clients: auto` becomes the machine's sweep (autoClientSweep) when the file is read, so every later
 * stage sees a plain list; the CPU count is the one this process may use (its affinity).
 */
function clientsField(what: string, description: string) {
  return z
    .preprocess(
      (v) => (v === 'auto' ? autoClientSweep(os.availableParallelism()) : v),
      z.array(positiveInt).min(1, `at least one ${what}`),
    )
    .describe(`${description} "auto": 1, 2, 4, ... up to 2x the logical CPUs.`);
}

const cpuList = z.preprocess(
  (v) => (typeof v === 'number' ? String(v) : v),
  z.string().regex(/^\d+(-\d+)?(,\d+(-\d+)?)*$/, 'a CPU list like 0-3,8'),
);
const cpusField = z
  .union(
    [
      z.literal('auto'),
      z.strictObject({
        server: cpuList.describe('CPUs of the PostgreSQL server (taskset -c list), e.g. "0-3".'),
        client: cpuList.describe('CPUs of the benchmark client, e.g. "4-7"; pgbench -j follows their count.'),
      }),
    ],
    { error: 'expected "auto" or {server: "0-3", client: "4-7"} (kernel CPU lists)' },
  )
  .optional()
  .describe(
    'Pin the server and the clients to separate CPUs (taskset, or numactl with the server memory bound to its NUMA nodes). "auto" splits whole cores (SMT siblings together), one half of the NUMA nodes each where there are several. Unset: no pinning.',
  );

const retriesField = nonNegativeInt
  .max(10)
  .default(2)
  .describe('Retries of a failed run before it is given up.');

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
  partitions: nonNegativeInt
    .default(0)
    .describe('--partitions=N for pgbench_accounts (0 = not partitioned).'),
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
    scale: positiveInt.default(10).describe('pgbench scale factor (100,000 pgbench_accounts rows per unit).'),
    clients: clientsField('client count', 'The client-count sweep: one cell per entry.'),
    threads: z
      .union([z.enum(['auto', 'clients']), positiveInt])
      .default('auto')
      .describe('pgbench -j: auto = min(clients, CPU count), clients = one thread per client, or a number.'),
    duration: durationField,
    warmup: warmupField,
    rounds: roundsField,
    settings: settingsField,
    init: initOptions
      .default({ steps: 'dtgvp', partitions: 0, fillfactor: 100, unloggedTables: false })
      .describe('Options of the data load (pgbench -i).'),
    vacuum: vacuumField,
    checkpoint: checkpointField,
    extraArgs: z
      .array(z.string())
      .default([])
      .describe('Extra pgbench options from an allow-list, e.g. ["--max-tries=3", "--rate=500"].'),
    threshold: thresholdField,
    metrics: metricsField,
    retries: retriesField,
    cpus: cpusField,
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

export const sysbenchWorkloadSchema = z
  .strictObject({
    name: nameField,
    description: descriptionField,
    tool: z.literal('sysbench').describe('The client that drives the workload.'),
    script: z
      .enum(SYSBENCH_SCRIPTS)
      .describe('The sysbench OLTP Lua script (run as `sysbench SCRIPT ... run`).'),
    tables: positiveInt.default(1).describe('sysbench --tables: number of sbtestN tables.'),
    tableSize: positiveInt.default(10000).describe('sysbench --table-size: rows per table.'),
    clients: clientsField(
      'thread count',
      'The thread sweep, sysbench --threads (one connection per thread): one cell per entry.',
    ),
    duration: durationField,
    warmup: warmupField,
    rounds: roundsField,
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
    settings: settingsField,
    vacuum: vacuumField,
    checkpoint: checkpointField,
    extraArgs: z
      .array(z.string())
      .default([])
      .describe('Extra sysbench OLTP options from an allow-list, e.g. ["--range-size=10", "--skip-trx=on"].'),
    threshold: thresholdField,
    metrics: metricsField,
    retries: retriesField,
    cpus: cpusField,
  })
  .superRefine((w, ctx) => {
    refineClients(w, ctx);
    refineSettingsAndArgs(w, ctx, checkSysbenchExtraArg);
  });

/** Every workload file is one of these, told apart by its `tool`. */
export const workloadSchema = z.discriminatedUnion('tool', [pgbenchWorkloadSchema, sysbenchWorkloadSchema]);

/** The variant schema for a tool, e.g. to list the keys a pgbench workload accepts. */
export const WORKLOAD_VARIANTS = {
  pgbench: pgbenchWorkloadSchema,
  sysbench: sysbenchWorkloadSchema,
} as const;

type RefineContext = z.core.$RefinementCtx;

function refineClients(w: { clients: number[] }, ctx: RefineContext): void {
  if (new Set(w.clients).size !== w.clients.length) {
    ctx.addIssue({ code: 'custom', path: ['clients'], message: 'client counts must not repeat' });
  }
}

function refineSettingsAndArgs(
  w: { settings: Record<string, unknown>; extraArgs: string[] },
  ctx: RefineContext,
  checkArg: (arg: string) => string | undefined,
): void {
  for (const [name, value] of Object.entries(w.settings)) {
    const problem = settingProblem(name, String(value));
    if (problem) ctx.addIssue({ code: 'custom', path: ['settings', name], message: problem });
  }
  w.extraArgs.forEach((arg, i) => {
    const problem = checkArg(arg);
    if (problem) ctx.addIssue({ code: 'custom', path: ['extraArgs', i], message: problem });
  });
}

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

/** A workload as written in the file (defaults not yet applied). */
export type WorkloadInput = z.input<typeof workloadSchema>;
/** A validated pgbench workload with defaults applied; paths in `scripts` are absolute. */
export type PgbenchWorkload = z.output<typeof pgbenchWorkloadSchema>;
/** A validated sysbench workload with defaults applied. */
export type SysbenchWorkload = z.output<typeof sysbenchWorkloadSchema>;
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
