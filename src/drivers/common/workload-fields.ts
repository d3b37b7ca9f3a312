/**
 * The fields every workload variant shares (clients, duration, warmup, rounds, settings, metrics, ...): one
 * name and one definition each, so a field means the same for every tool. Each driver's workload section
 * (src/drivers/<tool>/workload.ts) lists them beside its own fields; src/drivers/workload.ts composes the
 * sections into the workload file schema.
 */
import os from 'node:os';
import { z } from 'zod';
import { SETTING_NAME, settingProblem } from '../../core/results/settings.js';
import { autoClientSweep } from '../../machine/client-sweep.js';
import { FAIL_ON, FAIL_ON_MEANING } from '../../core/compare/decision/policy.js';
import { DEFAULT_ROUNDS } from '../../core/compare/defaults.js';
import {
  DEFAULT_GATED_METRICS,
  GATED_METRIC_NAMES,
  type GatedMetricName,
} from '../../core/results/metrics.js';
import { DEFAULT_INSTRUCTION_SETTINGS, type InstructionSettings } from '../../core/results/instructions.js';
import {
  CLIENTS,
  CLIENT_COUNTS,
  DURATION_S,
  INSTRUCTION_REPETITIONS,
  INSTRUCTION_TRANSACTIONS,
  RETRIES,
  ROUNDS,
  WARMUP_S,
  WORKLOAD_NAME_LENGTH,
  rangeText,
  type Bound,
} from '../../core/bounds.js';
import { MATRIX_COMBINATIONS, refineMatrix } from './settings-matrix.js';

/** Settings pgperf owns (see settings.ts); kept here for the schema's users. */
export { RESERVED_SETTINGS } from '../../core/results/settings.js';

export const positiveInt = z.number().int().positive();
export const nonNegativeInt = z.number().int().nonnegative();

/**
 * A whole number within one of the bounds every source of that size shares (src/core/bounds.ts): the
 * workload file refuses what a flag, an Action input or a PR command would, with the same range.
 */
export function boundedInt(bound: Bound) {
  // The ceiling first, and alone when it fails: 1e26 is out of range, not also "above 2^53" (int()).
  const capped = z
    .number()
    .max(bound.max, { error: `expected a whole number ${rangeText(bound)}`, abort: true })
    .int();
  // Below the floor keeps the words every number field uses ("expected a number > 0").
  return bound.min === 1 ? capped.positive() : capped.min(bound.min);
}
const settingName = z.string().regex(SETTING_NAME, 'a setting name like shared_buffers');
const settingValue = z.union([z.string(), z.number(), z.boolean()], {
  error: 'expected a setting value: a string, a number or true/false',
});

// Fields that mean the same in every variant; each variant lists them in its own order.
export const nameField = z
  .string()
  .max(WORKLOAD_NAME_LENGTH.max, {
    error: `expected at most ${WORKLOAD_NAME_LENGTH.max} characters (the name becomes part of file names)`,
    abort: true,
  })
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" and "-"')
  .describe(
    `Unique name, used in reports and results: letters, digits, ".", "_" and "-", at most ${WORKLOAD_NAME_LENGTH.max} characters.`,
  );
export const descriptionField = z.string().default('').describe('What the workload shows and why.');
export const durationField = boundedInt(DURATION_S)
  .default(60)
  .describe(`Seconds per measured run, ${rangeText(DURATION_S)}.`);
export const warmupField = boundedInt(WARMUP_S)
  .default(10)
  .describe(`Seconds of the uncounted warm-up run per arm and cell (0 = none), ${rangeText(WARMUP_S)}.`);
export const roundsField = boundedInt(ROUNDS)
  .optional()
  .describe(
    `Rounds: every cell runs every arm once per round; ${rangeText(ROUNDS)}. Set, they are fixed; unset, a comparison's rounds are adaptive (docs/decision.md), and ${DEFAULT_ROUNDS} where rounds are fixed.`,
  );

/** The rounds a workload runs when no option sets them: its own, else DEFAULT_ROUNDS. */
export function roundsOf(w: { rounds?: number | undefined }): number {
  return w.rounds ?? DEFAULT_ROUNDS;
}
export const settingsField = z
  .record(settingName, settingValue)
  .default({})
  .describe('postgresql.conf overrides, applied to every arm alike.');
export const matrixField = z
  .record(
    settingName,
    z.array(
      z.union([z.string(), z.number(), z.boolean()], { error: 'expected a string, number or boolean' }),
    ),
  )
  .optional()
  .describe(
    `Settings to sweep, each over its values, e.g. {io_method: [sync, worker]}: every combination of values is a workload of its own, named like name[io_method=sync], with the values in its settings (${rangeText(MATRIX_COMBINATIONS)} combinations; values of letters, digits, ".", "_", "+" and "-"; a setting not also in settings).`,
  );
export const vacuumField = z
  .boolean()
  .default(true)
  .describe('VACUUM before each measured run, so dead rows do not carry over.');
export const checkpointField = z
  .boolean()
  .default(true)
  .describe('CHECKPOINT before each measured run, so dirty buffers do not.');
export const metricsField = z
  .array(z.enum(Object.keys(GATED_METRIC_NAMES) as [GatedMetricName, ...GatedMetricName[]]))
  .min(1, 'at least one metric')
  .default([...DEFAULT_GATED_METRICS])
  .refine((m) => new Set(m).size === m.length, 'each metric at most once')
  .describe(
    'The metrics whose change gates the verdict: tps, latency-avg, p95, p99 (latencies: lower is better), and the per-transaction costs wal-bytes, wal-records, wal-fpi, buffer-hits, buffer-reads, read-time, io-reads, backend-cpu (lower is better; docs/steady-metrics.md). All of them, over every cell, form one Holm family.',
  );
export const thresholdField = z
  .number()
  .positive()
  // As --threshold and the input: a change of 100% or more is no threshold a throughput can cross.
  .lt(100)
  .optional()
  .describe("Practical threshold in percent for this workload's verdicts (default: the run's).");
export const failOnField = z
  .enum(FAIL_ON)
  .optional()
  .describe(
    `When this workload's cells fail the gate (default: the run's --fail-on / input fail-on): ${FAIL_ON.map((v) => `${v}: ${FAIL_ON_MEANING[v]}`).join('; ')}.`,
  );
/**
 * `clients: auto` becomes the machine's sweep (autoClientSweep) when the file is read, so every later
 * stage sees a plain list; the CPU count is the one this process may use (its affinity), and the sweep
 * stops at the largest client count pgperf runs (CLIENTS).
 */
export function clientsField(what: string, description: string) {
  return z
    .preprocess(
      (v) => (v === 'auto' ? autoClientSweep(os.availableParallelism()).filter((c) => c <= CLIENTS.max) : v),
      z
        .array(boundedInt(CLIENTS))
        .min(1, `at least one ${what}`)
        .max(CLIENT_COUNTS.max, `at most ${CLIENT_COUNTS.max} entries`),
    )
    .describe(
      `${description} Each ${rangeText(CLIENTS)}, at most ${CLIENT_COUNTS.max} entries. "auto": 1, 2, 4, ... up to 2x the logical CPUs.`,
    );
}

export const cpuList = z.preprocess(
  (v) => (typeof v === 'number' ? String(v) : v),
  z.string().regex(/^\d+(-\d+)?(,\d+(-\d+)?)*$/, 'a CPU list like 0-3,8'),
);
export const cpusField = z
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

/**
 * The instruction mode (docs/instructions.md): off unless set; `true` takes the defaults, an object sets
 * some of them. Resolved to the full settings, so results.json records what was measured.
 */
export const instructionsField = z
  .union(
    [
      z.boolean(),
      z.strictObject({
        short: boundedInt(INSTRUCTION_TRANSACTIONS)
          .optional()
          .describe(`Transactions of the short run (default 200), ${rangeText(INSTRUCTION_TRANSACTIONS)}.`),
        long: boundedInt({ min: 1, max: INSTRUCTION_TRANSACTIONS.max })
          .optional()
          .describe(`Transactions of the long run (default 1200), up to ${INSTRUCTION_TRANSACTIONS.max}.`),
        warmup: boundedInt(INSTRUCTION_TRANSACTIONS)
          .optional()
          .describe(`Uncounted transactions first (default 200), ${rangeText(INSTRUCTION_TRANSACTIONS)}.`),
        repetitions: boundedInt(INSTRUCTION_REPETITIONS)
          .optional()
          .describe(`Repetitions per arm (default 3), ${rangeText(INSTRUCTION_REPETITIONS)}.`),
        threshold: z
          .number()
          .positive()
          .max(100)
          .optional()
          .describe('Threshold in percent of the instruction verdict (default 1).'),
      }),
    ],
    { error: 'expected true, false or {short, long, warmup, repetitions, threshold}' },
  )
  .optional()
  .transform((v): InstructionSettings | undefined =>
    v === undefined || v === false ? undefined : resolveInstructions(v),
  )
  .refine((v) => v === undefined || v.long > v.short, 'long must be more transactions than short')
  .describe(
    'Count CPU instructions per transaction (valgrind/cachegrind) in short fixed-transaction runs at 1 client beside the timed rounds, judged by their own rule: true, or {short, long, warmup, repetitions, threshold}.',
  );

/** `true` or a partial object as the full settings. */
export function resolveInstructions(
  v: true | { short?: number; long?: number; warmup?: number; repetitions?: number; threshold?: number },
): InstructionSettings {
  const d = DEFAULT_INSTRUCTION_SETTINGS;
  if (v === true) return { ...d };
  return {
    short: v.short ?? d.short,
    long: v.long ?? d.long,
    warmup: v.warmup ?? d.warmup,
    repetitions: v.repetitions ?? d.repetitions,
    thresholdPct: v.threshold ?? d.thresholdPct,
  };
}

/** A switch that is off unless true, and absent when off (as in documents from before it existed). */
function offUnlessTrue(description: string) {
  return z
    .boolean()
    .optional()
    .transform((v) => (v === true ? true : undefined))
    .describe(description);
}

/** The plan phase (docs/plans.md). */
export const plansField = offUnlessTrue(
  "Take the plan of every statement the workload runs (EXPLAIN (COSTS OFF)) and, where the install has pg_stat_statements, each statement's calls, time and shared blocks, per arm on servers of their own before the timed rounds; the report names the statements whose plan differs from base's. pgbench only.",
);

/** Cold start (docs/workloads.md#cold-starts). */
export const coldStartField = offUnlessTrue(
  "Start every measured run cold: after the run's VACUUM/CHECKPOINT the server is restarted (shared buffers emptied) and the OS page cache dropped where pgperf may (root), machine-wide: every process on the machine loses its cached files; the workload's servers get track_io_timing on unless its settings say otherwise, and their own clusters. For I/O-bound cells: read the buffer-reads, io-reads and read-time metrics.",
);

export const retriesField = boundedInt(RETRIES)
  .default(2)
  .describe(`Retries of a failed run before it is given up, ${rangeText(RETRIES)}.`);

type RefineContext = z.core.$RefinementCtx;

export function refineClients(w: { clients: number[] }, ctx: RefineContext): void {
  if (new Set(w.clients).size !== w.clients.length) {
    ctx.addIssue({ code: 'custom', path: ['clients'], message: 'client counts must not repeat' });
  }
}

export function refineSettingsAndArgs(
  w: {
    settings: Record<string, unknown>;
    matrix?: Record<string, Array<string | number | boolean>> | undefined;
    extraArgs: string[];
  },
  ctx: RefineContext,
  checkArg: (arg: string) => string | undefined,
): void {
  for (const [name, value] of Object.entries(w.settings)) {
    const problem = settingProblem(name, String(value));
    if (problem) ctx.addIssue({ code: 'custom', path: ['settings', name], message: problem });
  }
  refineMatrix(w, ctx);
  w.extraArgs.forEach((arg, i) => {
    const problem = checkArg(arg);
    if (problem) ctx.addIssue({ code: 'custom', path: ['extraArgs', i], message: problem });
  });
}

/**
 * The fields every tool's workload has beside its own: timing, rounds, server settings and maintenance,
 * the gate (threshold, metrics, fail-on), retries and pinning. A tool's schema spreads them after its own.
 */
export const commonWorkloadFields = {
  duration: durationField,
  warmup: warmupField,
  rounds: roundsField,
  settings: settingsField,
  matrix: matrixField,
  vacuum: vacuumField,
  checkpoint: checkpointField,
  threshold: thresholdField,
  metrics: metricsField,
  failOn: failOnField,
  retries: retriesField,
  cpus: cpusField,
  instructions: instructionsField,
  plans: plansField,
  coldStart: coldStartField,
};
