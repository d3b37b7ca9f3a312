/**
 * One pipeline for every adapter (CLI `run`/`demo`, the Action): arms (given or built) -> run -> compare,
 * each stage a plain value. The run loop writes through the sinks it is handed: the results file in the run
 * directory, and the results store when there is one. Rendering is core/report's and publishing
 * src/flows/publish's, on the values returned here.
 */
import type { InstructionsRecord } from '../../../core/results/instructions.js';
import type { Workload } from '../../../drivers/workload.js';
import { regressedByCounts } from '../../../core/compare/evidence/counted-regression.js';
import { MIN_MEMORY_RUNS } from '../../../core/compare/evidence/memory-evidence.js';
import path from 'node:path';
import type { ComparisonRequest } from '../../../postgres/builds/build-pair.js';
import type { RunComparison } from '../../../core/compare/comparison-types.js';
import { combineSinks, fileSink } from '../../../run/sink.js';
import type { CellKey, RunResult } from '../../../core/results/result-types.js';
import {
  checkRunControls,
  runBenchmark,
  validateRequest,
  type ArmSpec,
  type RunDeps,
  type RunRequest,
} from '../../../run/run-loop.js';
import { UserError, errorMessage } from '../../../core/util/errors.js';
import { DEFAULT_CONFIRM_ROUNDS } from '../../../core/compare/analysis/confirmation.js';
import { planSizeProblem } from '../../../run/plan-size.js';
import { metricOption } from '../../../core/compare/metric-option.js';
import { metricFromName } from '../../../core/results/metrics.js';
import { analyse } from '../../../core/compare/analysis/recorded-analysis.js';
import { refuseUnreachablePlan } from '../noise/design-check.js';
import { checkRecordable } from '../../../drivers/recorded-metrics.js';
import { canonicalJson } from '../../../machine/fingerprint.js';
import { withNoiseWarnings } from '../noise/noise-warnings.js';
import { runnerId, type NoiseStore } from '../noise/runner-noise.js';
import { loadNoiseFloors } from '../noise/noise-floors.js';
import { readGateRecord } from '../noise/read-gate-record.js';
import { workloadDefinitionHash } from '../../../core/results/workload-definition.js';
import { captureEnvironment } from '../../../machine/environment.js';
import type { Logger } from '../../../core/util/logger.js';
import {
  checkInstructionCounter,
  checkInstructionWorkloads,
  runInstructionPhase,
  type ChangedFunctions,
  type CounterChoice,
  type InstructionPhaseDeps,
} from '../../../run/counted/instruction-phase.js';
import { untimedWorkloads } from '../../../core/compare/analysis/unexecuted-code.js';
import { explainTargets, runExplainPhase, withExplanation } from '../../../run/counted/explain-phase.js';
import { checkDesignWorkloads, runPlanPhase } from '../../../run/counted/plan-phase.js';
import {
  compareCompiledCode,
  type FunctionComparisonOptions,
} from '../../../postgres/builds/compiled-code.js';
import { INSTRUCTION_METRIC } from '../../../core/compare/evidence/instruction-rule.js';
import { describeCodeDifference } from '../../../core/compare/analysis/same-code.js';
import { unchangedHeads } from '../../../core/results/unchanged-heads.js';
import type { CompiledCodeComparison } from '../../../core/results/result-types.js';
import { refuseUnknownSettings } from '../../../postgres/cluster/known-settings.js';
import { resolveRunAs } from '../../../postgres/cluster/run-as.js';
import type { InstallDeps } from '../../../postgres/cluster/install-runner.js';
import { writeResults } from '../../../store/write-results.js';
import { emptyPlansRecord, type PlansRecord } from '../../../core/results/plans.js';
import { answerCost } from '../../../core/results/answer-cost.js';
import { archiveSink } from './archive-sink.js';
import {
  countedByDefault,
  withoutFailedDefaults,
  probeDefaultCounter,
  uncountableNote,
  withDefaultCounts,
  type EvidenceDefaults,
} from '../../../run/counted/default-evidence.js';

/** Where the arms come from: installs given as bin dirs, or base and head built from source. */
export type ArmSource =
  { kind: 'installed'; arms: ArmSpec[] } | { kind: 'build'; request: ComparisonRequest };

/** What a results store must offer the pipeline (src/store's ResultStore satisfies it). */
export interface RunArchive extends Partial<NoiseStore> {
  /** With credentials masked. */
  readonly description: string;
  save(result: RunResult): Promise<{ id: string }>;
  // A store that can also be read (list, load) gives the comparison this runner's noise (noise-warnings.ts).
}

export interface PipelineRequest extends Omit<RunRequest, 'arms' | 'sink' | 'logsDir'> {
  arms: ArmSource;
  /**
   * 'refuse' (pgperf run and the Action, unless forced): a plan that cannot reach significance in any cell
   * is a UserError before anything is built or run; 'warn' (default): the run loop only warns.
   */
  planCheck?: 'refuse' | 'warn';
  /** The run directory: results.json and logs/ are written there. */
  runDir: string;
  /** After the rounds, profile the workloads whose throughput changed (explain-phase.ts); default off. */
  explain?: boolean;
  /** The instruction mode's counter (instruction-phase.ts); auto by default. */
  instructionCounter?: CounterChoice;
  /** The evidence gathered unless switched off (default-evidence.ts); none when absent. */
  evidenceDefaults?: EvidenceDefaults;
}

export interface PipelineDeps extends RunDeps {
  /** Builds the arms from source; required when `arms.kind` is 'build'. */
  build?: (request: ComparisonRequest, signal?: AbortSignal) => Promise<ArmSpec[]>;
}

export interface PipelineOutcome {
  result: RunResult;
  comparison: RunComparison;
  resultsFile: string;
  /** Set when the run was saved to the store. */
  archived?: { id: string; description: string };
  /** Why saving to the store failed (the results file is still complete). */
  archiveError?: string;
}

export const RESULTS_FILE = 'results.json';

/** Why workloads get no timed round when their counted runs executed none of the changed code. */
const UNEXECUTED_WHY =
  'their counted runs executed none of the functions whose code a head changed, and nothing else differs (code placement can still move timings)';
/** Why a workload whose counts regressed for every head runs no timed round. */
const COUNTED_REGRESSION_WHY =
  'the instruction counts decided a regression for every head, which timed rounds cannot pass';
const NONE_EXECUTED_WHY =
  "no workload's counted runs executed any of the functions whose code a head changed, and nothing else differs";

/** Says where the run was saved, or (a warning) why it was not; `prefix` e.g. "bisect: ". */
export function logArchive(
  outcome: Pick<PipelineOutcome, 'archived' | 'archiveError'>,
  logger: Logger,
  prefix = '',
): void {
  if (outcome.archived) {
    logger.info(`${prefix}saved to the store ${outcome.archived.description} as ${outcome.archived.id}`);
  }
  if (outcome.archiveError) logger.warn(outcome.archiveError);
}

/**
 * One comparison, from the arms to the analysed document. `store`, when given, is the results store the
 * finished run is saved to (and, when it can be read, where this runner's noise comes from); it goes only
 * to the steps that keep or read runs, never through the measuring.
 */
export async function runPipeline(
  req: PipelineRequest,
  deps: PipelineDeps,
  store?: RunArchive,
): Promise<PipelineOutcome> {
  // A control that cannot be applied stops the run before a build spends its minutes.
  await checkRunControls(req.controls, deps.logger);
  checkDesignReach(req);
  checkInstructionWorkloads(req.workloads);
  checkDesignWorkloads(req.workloads);
  const started = Date.now();
  // Base and head that can differ: the default evidence and the noise floors are for these alone.
  const compares = armsCompared(req.arms);
  // The counters are probed once, before anything is built, for every phase that counts.
  const explicitProbe = await checkInstructionCounter(req, deps);
  const defaults = compares && !req.partOfRun ? req.evidenceDefaults : undefined;
  const defaultProbe = await probeDefaultCounter(
    req.workloads,
    defaults,
    req.instructionCounter,
    deps,
    explicitProbe,
  );
  const probe = explicitProbe ?? defaultProbe;
  // The floors are read before any build: the code under test runs on this machine from then on.
  const analysis = compares ? await withNoiseFloors(req, deps.logger, store) : req.analysis;
  // So is what the gate's errors were on this runner, which every report of the comparison states.
  const gateRecord = compares ? await runnerGateRecordOf(req, deps.logger, store) : undefined;
  const arms = await resolveArms(req.arms, deps);
  const builtS = (Date.now() - started) / 1000;
  validateRequest({ arms, workloads: req.workloads });
  // A setting an arm's PostgreSQL does not know is refused before anything starts (known-settings.ts); its
  // postgres is asked as the run-as user when pgperf is root.
  const runAs = await resolveRunAs(req.runAs, deps);
  await refuseUnknownSettings(arms, req.workloads, { ...deps, runAs });
  const compiledCode = await compareArmsCode(arms, { ...deps, runAs, tmpDir: req.tmpDir });
  // A head that runs base's code with base's settings is never measured; nothing is measured only when every
  // head was compared and is such a head.
  const unmeasuredHeads = unchangedHeads(compiledCode, arms).map((c) => c.head);
  const nothingToMeasure =
    compiledCode.length > 0 &&
    compiledCode.length === arms.length - 1 &&
    unmeasuredHeads.length === compiledCode.length;
  // The counted runs too measure only the arms the rounds measure.
  const measuredArms = arms.filter((a) => !unmeasuredHeads.includes(a.label));
  const resultsFile = path.join(req.runDir, RESULTS_FILE);
  const archive = store ? archiveSink(store) : undefined;
  // The instruction phase (the workloads that count: their own `instructions`, or by default) runs before
  // the timed rounds, on servers of its own; its record joins every document the run loop writes.
  const countingDeps = probe ? { ...deps, probe } : deps;
  // The default evidence (default-evidence.ts): counts where a counter is, plans on the counting servers.
  const workloads = defaultProbe ? withDefaultCounts(req.workloads) : req.workloads;
  const plansAlongside =
    defaults?.plans && !nothingToMeasure ? emptyPlansRecord(measuredArms.map((a) => a.label)) : undefined;
  const countingStarted = Date.now();
  const counted = nothingToMeasure
    ? undefined
    : await runInstructionPhase(
        {
          ...req,
          workloads,
          arms: measuredArms,
          ...(plansAlongside ? { plansAlongside } : {}),
          changedFunctions: changedFunctionsOf(compiledCode),
        },
        countingDeps,
      );
  const instructions = defaultProbe ? countsKept(counted, req.workloads, workloads) : counted;
  // The plan phase (opt-in per workload, plan-phase.ts), also before the rounds on servers of its own; its
  // record joins every document the run loop writes (the store's copy too). Not in the parts of a
  // stored-baseline run: base was not measured here.
  const planPhase =
    nothingToMeasure || req.partOfRun ? undefined : await runPlanPhase({ ...req, arms: measuredArms }, deps);
  const plans = mergePlans(planPhase, plansAlongside);
  const countedS = (Date.now() - countingStarted) / 1000;
  const instructionsDecide = metricOption(req.analysis) === INSTRUCTION_METRIC;
  // The workloads that ran none of any head's changed code need no timed round (unexecuted-code.ts); not in
  // a part of a larger run or a shard, whose rounds are the whole run's plan.
  const skipped = skippedRounds(
    req,
    { nothingToMeasure, instructionsDecide, arms, measuredArms },
    {
      compiledCode,
      instructions,
      workloads,
    },
  );
  const file = fileSink(resultsFile);
  const sink = archive ? combineSinks(file, archive.sink) : file;
  const {
    arms: _source,
    runDir,
    planCheck: _check,
    explain,
    instructionCounter: _counter,
    evidenceDefaults: _defaults,
    ...run
  } = req;
  const timedStarted = Date.now();
  const measured = await runBenchmark(
    {
      ...run,
      workloads,
      analysis,
      arms,
      sink,
      logsDir: path.join(runDir, 'logs'),
      calibration: sameInstall(arms),
      ...(instructions ? { instructions } : {}),
      ...(plans ? { plans } : {}),
      ...(compiledCode.length > 0 ? { compiledCode } : {}),
      ...(unmeasuredHeads.length > 0 && !nothingToMeasure ? { unmeasuredHeads } : {}),
      ...skipped,
    },
    deps,
  );
  const timedS = (Date.now() - timedStarted) / 1000;
  const comparison = analyse(measured);
  // The explanation joins results.json (rewritten whole); the store keeps the run as measured.
  const explainStarted = Date.now();
  const withExplain = explain
    ? await explained(measured, comparison, { ...req, workloads, arms }, countingDeps)
    : measured;
  const cost = answerCost(withExplain, {
    buildS: builtS,
    countedS: countedS + (Date.now() - explainStarted) / 1000,
    timedS,
    wallS: (Date.now() - started) / 1000,
  });
  // What every copy of the answer carries: its cost, and the gate's record on this runner.
  const answered = { cost, ...(gateRecord ? { gateRecord } : {}) };
  const result = { ...withExplain, ...answered };
  // Rewritten whole with what the answer cost, and so the store's copy (as measured: the history plots it): the
  // sink's finish has run (and runs once). Not once a stop was asked for: a second signal may end the process
  // at any moment, and the file the sink finished is whole.
  if (!deps.signal?.aborted)
    await Promise.all([writeResults(resultsFile, result), archive?.amend({ ...measured, ...answered })]);
  return {
    result,
    comparison: await withNoiseWarnings({ ...comparison, ...answered }, result, store, deps.logger),
    resultsFile,
    ...(archive?.saved ? { archived: { id: archive.saved.id, description: store!.description } } : {}),
    ...(archive?.error ? { archiveError: archive.error } : {}),
  };
}

/**
 * The timed rounds the counted evidence leaves to run: none for a workload that ran none of a head's
 * changed code (unexecuted-code.ts) or whose counts decided a regression for every head
 * (counted-regression.ts); not in a part of a larger run or a shard, whose rounds are the whole run's plan.
 */
function skippedRounds(
  req: Pick<PipelineRequest, 'partOfRun' | 'shard'>,
  run: { nothingToMeasure: boolean; instructionsDecide: boolean; arms: ArmSpec[]; measuredArms: ArmSpec[] },
  evidence: {
    compiledCode: CompiledCodeComparison[];
    instructions: InstructionsRecord | undefined;
    workloads: readonly Workload[];
  },
): Pick<RunRequest, 'skipTimedRounds' | 'untimedWorkloads' | 'memoryRounds'> {
  const { nothingToMeasure, instructionsDecide, arms } = run;
  const { compiledCode, instructions, workloads } = evidence;
  const names = workloads.map((w) => w.name);
  const decidesAlone = nothingToMeasure || instructionsDecide || req.partOfRun || req.shard;
  const heads = run.measuredArms.slice(1).map((a) => a.label);
  const regressed = decidesAlone ? [] : regressedByCounts(instructions, arms[0]!.label, heads, names);
  const cells = workloads.flatMap((w) => w.clients.map((clients) => ({ workload: w.name, clients })));
  const settings = arms.map((a) => ({ label: a.label, settings: a.settings }));
  const untimed = decidesAlone
    ? []
    : untimedWorkloads({ arms: settings, compiledCode, instructions, cells }, names);
  return timedRoundsSkipped(nothingToMeasure, instructionsDecide, untimed, regressed, workloads.length);
}

/**
 * Why no timed round runs (skipTimedRounds), which workloads need none (untimedWorkloads), and which run only
 * the few rounds their memory needs (memoryRounds): a workload whose counts decided a regression for every
 * head cannot pass on timed rounds, but a PostgreSQL hacker still wants to know whether its memory moved
 * (issue #44), which only the timed runs measure; MIN_MEMORY_RUNS rounds give the memory judgement its runs.
 */
export function timedRoundsSkipped(
  nothingToMeasure: boolean,
  instructionsDecide: boolean,
  untimed: readonly string[],
  regressed: readonly string[],
  workloads: number,
): Pick<RunRequest, 'skipTimedRounds' | 'untimedWorkloads' | 'memoryRounds'> {
  if (nothingToMeasure)
    return { skipTimedRounds: 'every head runs the same compiled code as base with the same settings' };
  if (instructionsDecide) return { skipTimedRounds: 'the instruction counts decide (--metric instructions)' };
  if (untimed.length > 0 && untimed.length === workloads) return { skipTimedRounds: NONE_EXECUTED_WHY };
  const memoryOnly = regressed.filter((w) => !untimed.includes(w));
  return {
    ...(untimed.length > 0
      ? { untimedWorkloads: { names: untimed, why: `${untimed.join(', ')}: ${UNEXECUTED_WHY}` } }
      : {}),
    ...(memoryOnly.length > 0
      ? {
          memoryRounds: {
            names: memoryOnly,
            rounds: MIN_MEMORY_RUNS,
            why: `${COUNTED_REGRESSION_WHY}: ${MIN_MEMORY_RUNS} rounds only, at the lowest client count, for their memory and steady costs`,
          },
        }
      : {}),
  };
}

/**
 * Per head, every function whose code changed, where the comparison could list them all, and those changed
 * only in immediates: the counted runs say which of them ran.
 */
function changedFunctionsOf(code: readonly CompiledCodeComparison[]): Record<string, ChangedFunctions> {
  return Object.fromEntries(
    code.flatMap((c) => {
      const f = c.serverFunctions;
      return f?.all ? [[c.head, { all: f.all, immediatesOnly: f.immediatesOnly ?? [] }] as const] : [];
    }),
  );
}

/** The plan phase's record with the plans taken on the counting servers (either may be absent). */
function mergePlans(
  phase: PlansRecord | undefined,
  alongside: PlansRecord | undefined,
): PlansRecord | undefined {
  const taken =
    alongside && alongside.statements.length + alongside.failures.length > 0 ? alongside : undefined;
  if (!phase || !taken) return phase ?? taken;
  return {
    ...phase,
    wallS: phase.wallS + taken.wallS,
    statements: [...phase.statements, ...taken.statements],
    plans: [...phase.plans, ...taken.plans],
    failures: [...phase.failures, ...taken.failures],
    notes: [...phase.notes, ...taken.notes],
  };
}

/**
 * The analysis settings with the noise floors of this runner's nightly history, when the store can be read
 * and the run compares builds (not an A/A calibration, not a one-arm run); a failing read is said, never fatal.
 */
/**
 * The counts as the answer uses them, where they were pgperf's default evidence: a default count that
 * failed leaves its workload (or head) to the timed rounds, and the workloads that could not be counted are
 * named in the notes.
 */
function countsKept(
  counted: InstructionsRecord | undefined,
  asked: readonly Workload[],
  counting: readonly Workload[],
): InstructionsRecord | undefined {
  if (!counted) return undefined;
  const kept = withoutFailedDefaults(counted, countedByDefault(asked));
  const note = uncountableNote(counting);
  if (note) kept.notes.push(note);
  return kept;
}

async function withNoiseFloors(
  req: PipelineRequest,
  logger: Logger,
  store: RunArchive | undefined,
): Promise<PipelineRequest['analysis']> {
  if (!store || !isReadable(store)) return req.analysis;
  const single = metricOption(req.analysis);
  const cells = req.workloads.flatMap((w) => {
    // The definition as the run loop will record it (prepare-run.ts: the duration override applied).
    const duration = req.durationS ?? w.duration;
    const definition = workloadDefinitionHash({ ...w, duration, warmup: Math.min(w.warmup, duration) });
    return w.clients.map((clients) => ({
      workload: w.name,
      clients,
      metrics: single ? [single] : w.metrics.flatMap((name) => metricFromName(name) ?? []),
      definition,
    }));
  });
  const branch = baseBranch(req);
  try {
    const runner = runnerId(await captureEnvironment(''));
    const floors = await loadNoiseFloors(store, runner, cells, { branch });
    if (floors.length === 0) return req.analysis;
    logger.info(
      `noise floors from this runner's nightly history of ${branch === null ? 'runs that name no branch' : `branch ${branch}`}: ${floors.map((f) => `${f.workload}@${f.clients} ${f.metric} ${f.floorPct.toFixed(1)}% (${f.runs} runs, ${f.firstRunId} to ${f.lastRunId})`).join(', ')}`,
    );
    return { ...req.analysis, noiseFloors: floors };
  } catch (e) {
    logger.warn(`could not read noise floors from ${store.description}: ${errorMessage(e)}`);
    return req.analysis;
  }
}

/** This runner's gate record for the request's cells, from the store when it can be read (read-gate-record.ts). */
async function runnerGateRecordOf(req: PipelineRequest, logger: Logger, store: RunArchive | undefined) {
  const cells: CellKey[] = req.workloads.flatMap((w) =>
    w.clients.map((clients) => ({ workload: w.name, clients })),
  );
  const readable = store && isReadable(store) ? store : undefined;
  return readGateRecord(readable, runnerId(await captureEnvironment('')), cells, logger);
}

function isReadable(store: RunArchive): store is RunArchive & NoiseStore {
  return typeof store.list === 'function' && typeof store.load === 'function';
}

/** The document with the differential profiles of what changed, when anything did (not for A/A runs or
 * stored baselines: there base was not measured here). */
async function explained(
  result: RunResult,
  comparison: RunComparison,
  req: Omit<PipelineRequest, 'arms'> & { arms: ArmSpec[] },
  deps: PipelineDeps & InstructionPhaseDeps,
): Promise<RunResult> {
  if (result.calibration || result.baseline) return result;
  const targets = explainTargets(comparison, req.workloads, result.instructions);
  return withExplanation(result, await runExplainPhase(targets, req, deps));
}

/** A UserError for a plan past the bounds of its size (src/run/plan-size.ts), for a --metric no workload records, and with planCheck 'refuse' when the plan cannot reach significance in any cell (see design-check.ts). */
export function checkDesignReach(req: Omit<PipelineRequest, 'runDir'>): void {
  // Whatever surface asked (the comparison's options name their flags first), no plan past its size's bounds.
  const rounds = req.adaptive?.plan.maxRounds ?? req.rounds;
  const oversized = planSizeProblem({
    workloads: req.workloads,
    arms: req.arms.kind === 'installed' ? req.arms.arms.length : 2,
    ...(rounds !== undefined ? { rounds } : {}),
    ...(req.durationS !== undefined ? { durationS: req.durationS } : {}),
    confirmRounds: req.calibration ? 0 : (req.confirmRounds ?? DEFAULT_CONFIRM_ROUNDS),
    ...(req.adaptive?.timeBudgetS !== undefined ? { timeBudgetS: req.adaptive.timeBudgetS } : {}),
  });
  if (oversized) throw new UserError(oversized);
  // A metric no run of a workload records would compare nothing: refused whatever planCheck says.
  checkRecordable(req.workloads, metricOption(req.analysis));
  // An instructions-only run has no timed rounds for a plan to reach significance in.
  if (req.planCheck !== 'refuse' || metricOption(req.analysis) === INSTRUCTION_METRIC) return;
  refuseUnreachablePlan({
    workloads: req.workloads,
    arms: req.arms.kind === 'installed' ? req.arms.arms.length : 2,
    alpha: req.analysis.alpha,
    ...(req.rounds !== undefined ? { rounds: req.rounds } : {}),
    ...(req.adaptive ? { adaptive: req.adaptive.plan } : {}),
    singleMetric: metricOption(req.analysis) !== undefined,
  });
}

/** The branch base comes from (its ref, or the ref a build of base was asked for); null when none is known. */
function baseBranch(req: PipelineRequest): string | null {
  return req.source?.base?.ref ?? (req.arms.kind === 'build' ? req.arms.request.baseRef : null);
}

/**
 * Each head's compiled code against base's, said in the log; none for one arm, an A/A run of one install, or
 * arms that share a bin directory (the same install with other settings). A comparison that cannot be made
 * is said and measured as usual.
 */
async function compareArmsCode(
  arms: readonly ArmSpec[],
  { logger, runner, runAs, tmpDir }: { logger: Logger; tmpDir: string | undefined } & InstallDeps,
): Promise<CompiledCodeComparison[]> {
  // objdump reads the head's server binary, code under test: as the run-as user too (compiled-code.ts).
  const options: FunctionComparisonOptions = { install: { runner, runAs }, tmpDir };
  const [base, ...heads] = arms;
  if (!base || heads.length === 0 || sameInstall(arms)) return [];
  const out: CompiledCodeComparison[] = [];
  for (const head of heads) {
    if (path.resolve(head.binDir) === path.resolve(base.binDir)) continue;
    const code = await compareCompiledCode(base, head, options);
    out.push(code);
    const what = `compiled code of ${head.label} vs ${base.label}`;
    if (code.unknown) logger.info(`${what}: not compared (${code.unknown}); measuring`);
    else if (code.identical)
      logger.info(`${what}: the same (${code.files} files equal after masking install paths)`);
    else logger.info(`${what}: ${describeCodeDifference(code)}`);
  }
  return out;
}

/** Two or more arms of one install measured alike: an A/A run (recorded as a calibration). */
export function sameInstall(arms: readonly ArmSpec[]): boolean {
  const [first] = arms;
  const same = (a: ArmSpec) =>
    a.binDir === first!.binDir &&
    a.build?.sha === first!.build?.sha &&
    canonicalJson(a.settings) === canonicalJson(first!.settings);
  return arms.length >= 2 && arms.every(same);
}

/** Base and a head that can differ: built from two commits, or given installs that are not one A/A install. */
function armsCompared(source: ArmSource): boolean {
  return source.kind === 'build' || (source.arms.length >= 2 && !sameInstall(source.arms));
}

async function resolveArms(source: ArmSource, deps: PipelineDeps): Promise<ArmSpec[]> {
  if (source.kind === 'installed') return source.arms;
  if (!deps.build) throw new Error('the pipeline was asked to build the arms but given no builder');
  return deps.logger.group('Building PostgreSQL', () => deps.build!(source.request, deps.signal));
}
