/**
 * The shape of a results document as read back (by `pgperf compare`, the Action's comment mode, the store):
 * every field that analysis and rendering use is checked for type, so a wrong type is an error naming the
 * file and the field, never a crash in a renderer. Unknown extra fields are kept (newer minor additions).
 */
import { z } from 'zod';
import { METRICS } from './metrics.js';

/** A metric key of METRICS (the analysis's metric, a confirmation cell's). */
const metricName = z.enum(Object.keys(METRICS) as [keyof typeof METRICS, ...Array<keyof typeof METRICS>]);

const finite = z.number().refine(Number.isFinite, 'expected a finite number');
const count = z.number().int().nonnegative();
const text = z.string();

const metricsSchema = z.record(text, finite);
const cellKey = z.looseObject({ workload: text, clients: z.number().int().positive() });
const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'expected a SHA-256 in hex (64 digits 0-9a-f)');

const commitRef = z.looseObject({
  ref: text.optional(),
  sha: text.optional(),
  chosenBy: text.optional(),
  committedAt: text.optional(),
});

const buildRecordSchema = z.looseObject({
  repo: text,
  ref: text,
  sha: text,
  options: z.array(text),
  serverVersion: text.optional(),
  cacheHit: z.boolean().optional(),
  compiler: z.looseObject({}).optional(),
});

const sampleSchema = z.looseObject({
  round: z.number().int().positive(),
  workload: text,
  clients: z.number().int().positive(),
  arm: text,
  attempt: z.number().int().positive().optional(),
  status: z.enum(['ok', 'failed']),
  failureReason: text.optional(),
  startedAt: text.optional(),
  endedAt: text.optional(),
  metrics: metricsSchema,
  counts: z.record(text, finite).optional(),
  progress: z.array(z.looseObject({ t: finite, tps: finite })).optional(),
  command: z.array(text).optional(),
  exitCode: z.number().int().nullable().optional(),
  steady: z
    .looseObject({
      transactions: finite,
      elapsedS: finite.optional(),
      deltas: z.record(text, finite),
      unavailable: z.array(text).optional(),
    })
    .optional(),
  memory: z
    .looseObject({
      field: text,
      intervalMs: finite,
      ticks: count,
      backends: count,
      peakBytes: finite.optional(),
      medianBytes: finite.optional(),
      notRecorded: text.optional(),
      contexts: z
        .looseObject({
          pid: z.number().int().positive().optional(),
          top: z
            .array(z.looseObject({ name: text, totalBytes: count, contexts: z.number().int().positive() }))
            .optional(),
          totalBytes: count.optional(),
          backendBytes: count.optional(),
          notRecorded: text.optional(),
        })
        .optional(),
    })
    .optional(),
});

const workloadRecord = z.looseObject({
  name: text,
  tool: text,
  clients: z.array(z.number().int().positive()).optional(),
  threshold: z.number().positive().optional(),
  rounds: z.number().int().positive().optional(),
  duration: z.number().positive().optional(),
});

/** What the instruction mode (and the explain phase) record: src/core/results/instructions.ts. */
const instructionsSchema = z.looseObject({
  counter: z.enum(['cachegrind', 'perf']),
  settings: z.record(
    text,
    z.looseObject({
      short: z.number().int().nonnegative(),
      long: z.number().int().positive(),
      warmup: count,
      repetitions: z.number().int().positive(),
      thresholdPct: z.number().gt(0).lt(100),
    }),
  ),
  wallS: finite,
  samples: z.array(
    z.looseObject({
      workload: text,
      clients: z.number().int().positive(),
      arm: text,
      repetition: z.number().int().positive(),
      counter: z.enum(['cachegrind', 'perf']),
      shortInstructions: finite,
      longInstructions: finite,
      perTx: finite,
    }),
  ),
  profiles: z.array(
    z.looseObject({
      workload: text,
      clients: z.number().int().positive(),
      base: text,
      head: text,
      file: text,
      movers: z.array(
        z.looseObject({
          fn: text,
          file: text,
          baseIrPerTx: finite,
          headIrPerTx: finite,
          deltaIrPerTx: finite,
        }),
      ),
    }),
  ),
  failures: z.array(
    z.looseObject({ workload: text, arm: text.optional(), reason: text, offered: z.boolean().optional() }),
  ),
  notes: z.array(text),
  changedCode: z
    .array(
      z.looseObject({
        workload: text,
        head: text,
        changedCount: count,
        executed: z.array(text),
        executedCount: count,
      }),
    )
    .optional(),
});

export const resultsSchema = z.looseObject({
  schemaVersion: z.number().int(),
  pgperfVersion: text,
  runId: text.optional(),
  fingerprint: z.looseObject({ id: text, facts: z.record(text, text) }).optional(),
  status: z.enum(['running', 'complete', 'interrupted', 'failed']),
  stopReason: text.optional(),
  startedAt: text,
  updatedAt: text,
  environment: z.looseObject({
    hostname: text,
    os: text,
    kernel: text,
    arch: text,
    cpuModel: text,
    cpuCount: count,
    memoryBytes: count,
    facts: z.record(text, text),
    nodeVersion: text,
    settingsHash: text,
    controls: z.array(z.looseObject({ control: text, file: text, to: text })).optional(),
  }),
  arms: z
    .array(
      z.looseObject({
        label: text,
        binDir: text,
        serverVersion: text,
        settingOverrides: z.record(text, text),
        build: buildRecordSchema.optional(),
      }),
    )
    .min(1),
  clients: z.array(z.looseObject({ tool: text, binDir: text, version: text })),
  workloads: z.record(text, workloadRecord),
  workloadScripts: z.record(text, text).optional(),
  analysis: z
    .looseObject({
      alpha: z.number().gt(0).lt(0.5),
      thresholdPct: z.number().gt(0).lt(100),
      metric: metricName,
      steadyPass: z.union([z.number().int().nonnegative(), z.literal('all')]).optional(),
      noiseFloors: z
        .array(
          cellKey.extend({
            metric: metricName,
            // A percentage change: at most 100% on the worse side of a throughput, 1000% read generously.
            floorPct: z.number().nonnegative().max(1000, 'expected a percentage of at most 1000'),
            runs: z.number().int().positive(),
            from: text,
            to: text,
            firstRunId: text.optional(),
            lastRunId: text.optional(),
            branch: text.nullable().optional(),
            definition: z
              .string()
              .regex(/^[0-9a-f]{16}$/, 'expected a workload definition hash (16 hex digits)')
              .optional(),
          }),
        )
        .optional(),
    })
    .optional(),
  adaptive: z
    .looseObject({
      plan: z.looseObject({
        schedule: z.array(z.number().int().positive()),
        maxRounds: z.number().int().positive(),
      }),
      looks: z.array(
        z.looseObject({ look: z.number().int().positive(), rounds: z.number().int().nonnegative() }),
      ),
    })
    .optional(),
  plan: z.looseObject({
    seed: z.number().int(),
    order: z.enum(['random', 'abba']),
    rounds: count,
    cells: z.array(z.looseObject({ workload: text, clients: z.number().int().positive() })),
    executed: z.array(z.looseObject({})),
    shard: z
      .looseObject({
        planId: text,
        index: z.number().int().nonnegative(),
        count: z.number().int().positive(),
        allCells: z.array(cellKey),
        // Written since shards are verified (src/run/shard-digest.ts); absent in older documents.
        assignment: z.array(z.array(cellKey)).optional(),
        planHash: sha256Hex.optional(),
        samplesDigest: sha256Hex.optional(),
      })
      .optional(),
  }),
  source: z
    .looseObject({
      repository: text.optional(),
      prNumber: z.number().int().positive().optional(),
      runUrl: text.optional(),
      base: commitRef.optional(),
      head: commitRef.optional(),
      canary: z.boolean().optional(),
      commitfest: z.looseObject({ id: z.number().int().positive(), branch: text }).optional(),
    })
    .optional(),
  baseline: z
    .looseObject({
      runId: text,
      commit: text.optional(),
      ref: text.optional(),
      storedAt: text,
      measuredAt: text,
      ageDays: finite,
      fingerprintMismatch: z.array(text).optional(),
      sentinel: z.looseObject({
        status: z.enum(['steady', 'drifted', 'skipped']),
        reason: text,
        onDrift: z.enum(['refuse', 'inconclusive']),
      }),
    })
    .optional(),
  // The instruction mode's counts (src/core/results/instructions.ts); absent when it did not run.
  instructions: instructionsSchema.optional(),
  // Each head's compiled code against base's (src/postgres/builds/compiled-code.ts).
  compiledCode: z
    .array(
      z.looseObject({
        head: text,
        identical: z.boolean(),
        files: count,
        differingFiles: z.array(text),
        differingCount: count,
        serverFunctions: z
          .looseObject({
            changed: z.array(text),
            changedCount: count,
            total: count,
            immediatesOnly: z.array(text).optional(),
            immediatesOnlyCount: count.optional(),
            movedOnlyCount: count.optional(),
            all: z.array(text).optional(),
            method: z.enum(['disassembly', 'bytes']).optional(),
            note: text.optional(),
          })
          .optional(),
      }),
    )
    .optional(),
  // What the answer cost (src/core/results/answer-cost.ts); absent in older documents.
  cost: z
    .looseObject({
      buildS: z.number().nonnegative(),
      countedS: z.number().nonnegative(),
      timedRounds: count,
      timedS: z.number().nonnegative(),
      wallS: z.number().nonnegative(),
    })
    .optional(),
  // On an A/A calibration: the gate's false alarms and drills caught (src/core/results/calibration-record.ts).
  calibrationRecord: z
    .looseObject({
      aa: z.looseObject({ comparisons: count, falseAlarms: count, cells: z.array(text) }),
      drills: z
        .looseObject({
          comparisons: count,
          caught: count,
          cells: z.array(
            z.looseObject({
              id: text,
              injectedPct: z.number().positive(),
              rows: count,
              deltaPct: finite.nullable(),
              verdict: text,
              caught: z.boolean(),
            }),
          ),
          skipped: z.array(text),
        })
        .optional(),
    })
    .optional(),
  // On a comparison: the runner's calibrations summed when it ran (src/core/results/calibration-record.ts).
  gateRecord: z
    .looseObject({
      runner: text,
      calibrations: z.number().int().positive(),
      from: text,
      to: text,
      aa: z.looseObject({ comparisons: count, falseAlarms: count }),
      drills: z
        .looseObject({ comparisons: count, caught: count, injectedPct: z.array(z.number().positive()) })
        .optional(),
    })
    .optional(),
  // The explain phase's profiles (src/run/counted/explain-phase.ts); absent when nothing was explained.
  explanation: instructionsSchema
    .extend({
      targets: z.array(z.looseObject({ head: text, workload: text, cells: z.array(text) })),
    })
    .optional(),
  // The plan phase's plans and counters (src/core/results/plans.ts); absent when no workload asked for plans.
  plans: z
    .looseObject({
      arms: z.array(text),
      wallS: finite,
      statements: z.array(z.looseObject({ workload: text, statement: text, explained: text.optional() })),
      plans: z.array(
        z.looseObject({
          workload: text,
          arm: text,
          statement: text,
          plan: z.string().optional(),
          error: z.string().optional(),
        }),
      ),
      stats: z.array(
        z.looseObject({
          workload: text,
          arm: text,
          statement: text,
          calls: count,
          totalTimeMs: finite,
          sharedBlksHit: count,
          sharedBlksRead: count,
          transactions: count,
        }),
      ),
      failures: z.array(z.looseObject({ workload: text, arm: text.optional(), reason: text })),
      notes: z.array(text),
    })
    .optional(),
  // The confirmation block (written since confirmation exists; absent in older documents).
  confirmation: z
    .looseObject({
      rounds: z.number().int().nonnegative(),
      seed: z.number().int(),
      cells: z.array(
        z.looseObject({
          head: text,
          workload: text,
          clients: z.number().int().positive(),
          metric: metricName,
        }),
      ),
      samples: z.array(sampleSchema),
    })
    .optional(),
  samples: z.array(sampleSchema),
  warnings: z.array(text),
});

/**
 * `samples[3].clients is "many": Invalid input: expected number, received string` for the first few issues of
 * a failed parse of `doc`.
 */
export function describeIssues(error: z.ZodError, doc: unknown, limit = 3): string {
  const lines = error.issues.slice(0, limit).map((issue) => {
    if (issue.path.length === 0) return `(document): ${issue.message}`;
    const value = valueAt(doc, issue.path);
    const shown = value === undefined ? 'missing' : `${JSON.stringify(value)?.slice(0, 60)}`;
    return `${formatPath(issue.path)} is ${shown}: ${issue.message}`;
  });
  const more = error.issues.length > limit ? ` (and ${error.issues.length - limit} more)` : '';
  return lines.join('; ') + more;
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`))
    .join('');
}

function valueAt(doc: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let v: unknown = doc;
  for (const key of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}
