/**
 * What a comparison is asked with, once for both adapters: the options the CLI's flags and the Action's
 * inputs read (a plain `ComparisonOptions` value) checked against each other and turned into the pipeline's
 * request, plus how to read a stored baseline when there is one. Refusals are OptionErrors spelled by the
 * adapter's map (`ComparisonNames`: '--rounds' on the CLI, "input 'rounds'" in the Action).
 */
import type { AnalysisSettings, RunSource } from '../../../core/results/result-types.js';
import { INSTRUCTION_METRIC } from '../../../core/compare/evidence/instruction-rule.js';
import { errorMessage } from '../../../core/util/errors.js';
import { resolveInstructions } from '../../../drivers/common/workload-fields.js';
import type { Workload } from '../../../drivers/workload.js';
import type { ArmOrder } from '../../../run/round-order.js';
import { roundSeconds } from '../../../run/round-seconds.js';
import { selectShard } from '../../../run/shards.js';
import { resolveAnalysis } from '../../../core/compare/analysis/recorded-analysis.js';
import type { AdaptiveOptions } from './adaptive-design.js';
import { roundsChoiceOf, type RoundsOption } from './rounds-choice.js';
import type { CounterChoice } from '../../../run/counted/instruction-phase.js';
import { runIdSeedProblem, sharedSeedOf, type RunIdSeed } from './shard-seed.js';
import { OptionError, type OptionNames } from './option-error.js';
import type { ArmSource, PipelineRequest } from '../pipeline/pipeline.js';
import type { BaselineSpec, StoredBaselineOptions } from '../baseline/stored-baseline.js';
import { DEFAULT_CONFIRM_ROUNDS } from '../../../core/compare/analysis/confirmation.js';
import { DEFAULT_SCHEDULE } from '../../../core/compare/analysis/adaptive.js';
import { planSizeProblem } from '../../../run/plan-size.js';

/**
 * The options a comparison's checks may name; `adaptive` is the pair that asks for adaptive rounds,
 * `fixedRounds` the opt-out of the adaptive default (rounds-choice.ts); `workloads`, `clients`,
 * `confirmRounds` and `duration` are named with `rounds` as the factors of the plan's size
 * (src/run/plan-size.ts).
 */
export type ComparisonOption =
  | RoundsOption
  | 'shard'
  | 'seed'
  | 'cpuDmaLatency'
  | 'governor'
  | 'workloads'
  | 'clients'
  | 'confirmRounds'
  | 'duration';

export type ComparisonNames = OptionNames<ComparisonOption>;

export interface ComparisonOptions {
  /** The arms: installs given as bin dirs, or base and head to build (resolved by the adapter). */
  arms: ArmSource;
  /** The workloads, loaded. */
  workloads: Workload[];
  /** Client counts for every workload instead of each one's own (before the shard split and the plan check). */
  clients?: number[];
  /**
   * true: every workload counts instructions (its own `instructions` settings where it has them), refused
   * where it cannot; false: only workloads that ask for it; absent: by default where it can (default-evidence.ts).
   */
  instructions?: boolean;
  /**
   * true: every pgbench workload takes its statements' plans (the plan phase, docs/plans.md); false: only
   * those that ask; absent: by default on the counting servers.
   */
  plans?: boolean;
  /** Measure only shard I of N of the cells (needs a seed every shard agrees on). */
  shard?: { index: number; count: number };
  seed?: number;
  /** A shard's seed when none is given: the id every job of the workflow run shares (shard-seed.ts). */
  runIdSeed?: RunIdSeed;
  /** Measure base in this job (same-job), or compare head with a stored run. */
  baseline: BaselineSpec;
  /** With a stored baseline: how it is compared (the store itself is the adapter's to open). */
  storedBaseline?: Omit<StoredBaselineOptions, 'store' | 'ref'>;
  /** The analysis settings given (the rest default). */
  analysis: Partial<AnalysisSettings>;
  adaptive: AdaptiveOptions;
  /** Every workload's rounds, fixed. */
  rounds?: number;
  /** Fixed rounds instead of the adaptive default (rounds-choice.ts): the workloads' own, else DEFAULT_ROUNDS. */
  fixedRounds?: boolean;
  durationS?: number;
  confirmRounds?: number;
  explain: boolean;
  instructionCounter: CounterChoice;
  order: ArmOrder;
  /** Run a plan that cannot reach significance in any cell (refused before the builds otherwise). */
  force: boolean;
  strictPreflight?: boolean;
  diagnostics?: boolean;
  clientBinDir?: string;
  runAs?: string;
  dataChecksums: boolean;
  tmpDir?: string;
  /** Machine controls held over the measured runs (opt-in); `root` is the sysfs tree (tests). */
  controls?: { cpuDmaLatencyUs?: number; governor?: string; root?: string };
  /** Recorded as-is in the results (commits, PR). */
  source?: RunSource;
}

export interface Comparison {
  /** The pipeline's request, but for the run directory (the adapter's). */
  request: Omit<PipelineRequest, 'runDir'>;
  /** Set with a stored baseline: how to read it, but for the store (the adapter's). */
  stored?: Omit<StoredBaselineOptions, 'store'>;
}

/**
 * The request of `options`, checked against each other before anything is built or started.
 * @throws OptionError (or UserError) naming the options at fault as `names` spells them.
 */
export function comparisonOf(options: ComparisonOptions, names: ComparisonNames): Comparison {
  const { baseline } = options;
  const given = workloadsOf(options);
  // The plan's size before anything else is worked out from it (the shard split lists every cell).
  refuseOversizedPlan(given, options, names);
  if (options.shard && baseline.kind === 'stored') {
    throw new OptionError(
      'shard',
      `${names.shard} and ${names.baseline} stored both given: a sharded comparison measures base and head in each shard (${names.baseline} same-job)`,
    );
  }
  const sharded = options.shard ? shardOf(given, options, names) : undefined;
  const workloads = sharded?.workloads ?? given;
  const analysis = resolveAnalysis(options.analysis);
  const armCount = options.arms.kind === 'installed' ? options.arms.arms.length : 2;
  const { adaptive, origin } = roundsChoiceOf(
    {
      ...(options.rounds !== undefined ? { rounds: options.rounds } : {}),
      adaptive: options.adaptive,
      ...(options.fixedRounds ? { fixedRounds: true } : {}),
      workloads: given,
      baseline: baseline.kind,
      sharded: options.shard !== undefined,
      alpha: analysis.alpha,
      roundS: roundSeconds(workloads, armCount, options.durationS),
    },
    names,
  );
  const request: Omit<PipelineRequest, 'runDir'> = {
    arms: options.arms,
    workloads,
    ...(sharded ? { shard: sharded.info } : {}),
    ...defined({
      seed: sharded?.seed ?? options.seed,
      rounds: options.rounds,
      durationS: options.durationS,
      confirmRounds: options.confirmRounds,
      strictPreflight: options.strictPreflight,
      diagnostics: options.diagnostics,
      clientBinDir: options.clientBinDir,
      runAs: options.runAs,
      tmpDir: options.tmpDir,
      source: options.source,
    }),
    analysis,
    ...(adaptive ? { adaptive } : {}),
    roundsOrigin: origin,
    explain: options.explain,
    instructionCounter: options.instructionCounter,
    evidenceDefaults: {
      instructions: options.instructions === undefined && options.analysis.metric !== INSTRUCTION_METRIC,
      plans: options.plans === undefined,
    },
    order: options.order,
    // Refused before the builds unless forced; a stored baseline pairs no rounds and measures in parts: its
    // plan is checked by the run loop only.
    planCheck: options.force || baseline.kind === 'stored' ? 'warn' : 'refuse',
    dataChecksums: options.dataChecksums,
    ...controlsOf(options.controls, names),
  };
  if (baseline.kind !== 'stored') return { request };
  if (!options.storedBaseline) throw new Error('a stored baseline without its options');
  return {
    request,
    stored: { ...(baseline.ref !== undefined ? { ref: baseline.ref } : {}), ...options.storedBaseline },
  };
}

/**
 * Refuses a plan whose runs or measuring time exceed their bounds (PLANNED_RUNS, PLANNED_SECONDS), as the
 * run will plan it: the rounds an adaptive run may reach, the confirmation rounds (DEFAULT_CONFIRM_ROUNDS
 * unless given), a stored baseline's sentinel; the time is a shard's share of the whole.
 * @throws OptionError naming the product and its factors.
 */
function refuseOversizedPlan(
  workloads: Workload[],
  options: ComparisonOptions,
  names: ComparisonNames,
): void {
  const { adaptive } = options;
  // An adaptive run plans its last look's rounds up front (designSequential: maxRounds, else the schedule's last).
  const rounds =
    adaptive.maxRounds ??
    (adaptive.timeBudgetS !== undefined ? (adaptive.schedule ?? DEFAULT_SCHEDULE).at(-1) : options.rounds);
  const stored = options.baseline.kind === 'stored';
  const problem = planSizeProblem(
    {
      workloads,
      arms: options.arms.kind === 'installed' ? options.arms.arms.length : 2,
      ...(rounds !== undefined ? { rounds } : {}),
      ...(options.durationS !== undefined ? { durationS: options.durationS } : {}),
      confirmRounds: options.confirmRounds ?? DEFAULT_CONFIRM_ROUNDS,
      ...(stored ? { sentinelRounds: options.storedBaseline?.sentinelRounds ?? 0 } : {}),
      ...(adaptive.timeBudgetS !== undefined ? { timeBudgetS: adaptive.timeBudgetS } : {}),
      ...(options.shard ? { shards: options.shard.count } : {}),
    },
    {
      workloads: names.workloads,
      clients: names.clients,
      rounds: adaptive.maxRounds !== undefined ? names.maxRounds : names.rounds,
      confirmRounds: names.confirmRounds,
      duration: names.duration,
    },
  );
  if (problem) throw new OptionError('rounds', problem);
}

/** The workloads with the client counts, instruction counting and plans the options ask for (copies). */
function workloadsOf(options: ComparisonOptions): Workload[] {
  // --metric instructions: the counts decide, so every workload counts them (no timed rounds).
  const counting = options.instructions || options.analysis.metric === INSTRUCTION_METRIC;
  return options.workloads.map((w) => ({
    ...w,
    ...(options.clients ? { clients: [...options.clients] } : {}),
    ...(counting ? { instructions: w.instructions ?? resolveInstructions(true) } : {}),
    ...(options.plans && w.tool === 'pgbench' ? { plans: true as const } : {}),
  }));
}

/**
 * The workloads of shard I/N (the split computed from the workloads with the options' overrides), and the
 * seed every shard agrees on.
 */
function shardOf(workloads: Workload[], options: ComparisonOptions, names: ComparisonNames) {
  const spec = options.shard!;
  const seed = sharedSeedOf(options.seed, options.runIdSeed);
  if (seed === undefined) {
    throw new OptionError(
      'seed',
      `${names.shard} needs ${names.seed} N: every shard must use the same seed (e.g. the workflow run number)${runIdSeedProblem(options.runIdSeed)}`,
    );
  }
  try {
    const shard = selectShard(workloads, spec, {
      ...(options.rounds !== undefined ? { rounds: options.rounds } : {}),
      ...(options.durationS !== undefined ? { duration: options.durationS } : {}),
    });
    return { ...shard, seed };
  } catch (e) {
    throw new OptionError('shard', `${names.shard} ${spec.index}/${spec.count}: ${errorMessage(e)}`);
  }
}

/** The machine controls requested (none when neither is given), their refusals spelled by `names`. */
function controlsOf(controls: ComparisonOptions['controls'], names: ComparisonNames) {
  if (controls?.cpuDmaLatencyUs === undefined && controls?.governor === undefined) return {};
  return {
    controls: {
      ...defined(controls),
      fields: { cpuDmaLatency: names.cpuDmaLatency, governor: names.governor },
    },
  };
}

/** `values` without its undefined entries. */
function defined<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}
