/**
 * The workload file schema (workloads/*.yml). One zod schema is the source of truth for validation,
 * for the TypeScript types and for the JSON Schema that editors use (`pgperf schema`).
 */
import { z } from 'zod';

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

/** Settings pgperf owns: the cluster would not be reachable or comparable if a workload set them. */
export const RESERVED_SETTINGS = [
  'port',
  'listen_addresses',
  'unix_socket_directories',
  'data_directory',
  'hba_file',
  'ident_file',
  'config_file',
  'external_pid_file',
  'include',
  'include_dir',
  'include_if_exists',
];

const positiveInt = z.number().int().positive();
const nonNegativeInt = z.number().int().nonnegative();
const settingName = z.string().regex(/^[a-z_][a-z0-9_.]*$/, 'a setting name like shared_buffers');
const settingValue = z.union([z.string(), z.number(), z.boolean()]);

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

export const workloadSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" and "-"')
      .describe('Unique name, used in reports and results.'),
    description: z.string().default('').describe('What the workload shows and why.'),
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
    clients: z
      .array(positiveInt)
      .min(1, 'at least one client count')
      .describe('The client-count sweep: one cell per entry.'),
    threads: z
      .union([z.enum(['auto', 'clients']), positiveInt])
      .default('auto')
      .describe('pgbench -j: auto = min(clients, CPU count), clients = one thread per client, or a number.'),
    duration: positiveInt.default(60).describe('Seconds per measured run.'),
    warmup: nonNegativeInt
      .default(10)
      .describe('Seconds of the uncounted warm-up run per arm and cell (0 = none).'),
    rounds: positiveInt.default(5).describe('Rounds: every cell runs every arm once per round.'),
    settings: z
      .record(settingName, settingValue)
      .default({})
      .describe('postgresql.conf overrides, applied to every arm alike.'),
    init: initOptions
      .default({ steps: 'dtgvp', partitions: 0, fillfactor: 100, unloggedTables: false })
      .describe('Options of the data load (pgbench -i).'),
    vacuum: z
      .boolean()
      .default(true)
      .describe('VACUUM before each measured run, so dead rows do not carry over.'),
    checkpoint: z
      .boolean()
      .default(true)
      .describe('CHECKPOINT before each measured run, so dirty buffers do not.'),
    extraArgs: z
      .array(z.string())
      .default([])
      .describe('Extra pgbench options from an allow-list, e.g. ["--max-tries=3", "--rate=500"].'),
    threshold: z
      .number()
      .positive()
      .max(100)
      .optional()
      .describe("Practical threshold in percent for this workload's verdicts (default: the run's)."),
    retries: nonNegativeInt.max(10).default(2).describe('Retries of a failed run before it is given up.'),
  })
  .superRefine((w, ctx) => {
    if ((w.builtin === undefined) === (w.scripts === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: w.builtin === undefined ? [] : ['scripts'],
        message: 'set exactly one of "builtin" (tpcb-like, simple-update, select-only) or "scripts"',
      });
    }
    if (new Set(w.clients).size !== w.clients.length) {
      ctx.addIssue({ code: 'custom', path: ['clients'], message: 'client counts must not repeat' });
    }
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
    for (const name of Object.keys(w.settings)) {
      if (RESERVED_SETTINGS.includes(name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['settings', name],
          message: `"${name}" is set by pgperf for every cluster and cannot be overridden`,
        });
      }
    }
    w.extraArgs.forEach((arg, i) => {
      const problem = checkExtraArg(arg);
      if (problem) ctx.addIssue({ code: 'custom', path: ['extraArgs', i], message: problem });
    });
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

/** A workload as written in the file (defaults not yet applied). */
export type WorkloadInput = z.input<typeof workloadSchema>;
/** A validated pgbench workload with defaults applied; paths in `scripts` are absolute. */
export type Workload = z.output<typeof workloadSchema>;

/** The JSON Schema editors use to validate and complete workload files. */
export function workloadJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(workloadSchema, { io: 'input', unrepresentable: 'any' }),
    $id: 'https://github.com/pgperf/pgperf/workloads/workload.schema.json',
    title: 'pgperf workload',
  };
}
