/**
 * What the run loop is asked to do (RunRequest) and what it is given to do it with (RunDeps), and the
 * request's check that runs before anything starts.
 */
import type { BuildRecord } from '../postgres/builds/build-record.js';
import type { Workload } from '../drivers/workload.js';
import type { Connection } from '../postgres/cluster/cluster.js';
import type { SequentialDesign } from '../core/compare/analysis/adaptive.js';
import type { StatSnapshot } from '../core/results/steady.js';
import type { ShardInfo } from './shards.js';
import type { RoundsOrigin } from './rounds-origin.js';
import type { AnalysisSettings, CompiledCodeComparison, RunSource } from '../core/results/result-types.js';
import type { ResultSink } from './sink.js';
import { UserError } from '../core/util/errors.js';
import type { Logger } from '../core/util/logger.js';
import type { ProcessRunner } from '../machine/os/process.js';
import type { ArmOrder } from './round-order.js';
import type { InstructionsRecord } from '../core/results/instructions.js';
import type { PlansRecord } from '../core/results/plans.js';
import type { ControlRequest } from '../machine/controls.js';

export interface ArmSpec {
  label: string;
  binDir: string;
  /** Settings for this arm only; normally empty so that every arm gets the same postgresql.conf. */
  settings: Record<string, string>;
  /** How pgperf built this arm, when it did. */
  build?: BuildRecord;
}

export interface RunRequest {
  arms: ArmSpec[];
  workloads: Workload[];
  /** Replaces every workload's rounds (a workload without any runs DEFAULT_ROUNDS). */
  rounds?: number;
  /** Replaces every workload's duration; warm-ups are capped at it. */
  durationS?: number;
  seed?: number;
  order: ArmOrder;
  /** Bin dir of the client binaries; default: the first arm's. */
  clientBinDir?: string;
  /** Unprivileged user for the server when pgperf is root. */
  runAs?: string;
  /** Receives the results document after every measured run and at the end. */
  sink: ResultSink;
  /** Recorded in the results, so that every later analysis of them uses the same settings. */
  analysis: AnalysisSettings;
  /** Where server logs are copied before the clusters are removed. */
  logsDir?: string;
  dataChecksums: boolean;
  /** Parent of the clusters' private directories (default: the OS temp dir). */
  tmpDir?: string;
  /** Recorded as-is in the results (commits, PR). */
  source?: RunSource;
  /** The instruction phase's counts (run/counted/instruction-phase.ts), kept in every document written. */
  instructions?: InstructionsRecord;
  /** The plan phase's plans and statement costs (run/counted/plan-phase.ts), kept in every document written. */
  plans?: PlansRecord;
  /** Each head's compiled code against base's (src/postgres/builds/compiled-code.ts), recorded as is. */
  compiledCode?: CompiledCodeComparison[];
  /**
   * Why no timed round is needed, when none is: every head runs base's compiled code with base's settings
   * (src/core/compare/analysis/same-code.ts), or the instruction counts alone decide (--metric instructions). The
   * document is written complete with no sample, and no server is started.
   */
  skipTimedRounds?: string;
  /**
   * Heads that run base's compiled code with base's settings (core/results/unchanged-heads.ts) in a run
   * whose other heads do not: they are in the document, with no server and no run; their cells are decided
   * by the claim (a sample of them would contradict it, and the document be refused on read).
   */
  unmeasuredHeads?: readonly string[];
  /**
   * Workloads that need no timed round (every head runs none of its changed code there, or base's code:
   * src/core/compare/analysis/unexecuted-code.ts), and why: their cells stay in the plan with no run, and their data
   * sets are not loaded. The pipeline gives skipTimedRounds instead when every workload is such.
   */
  untimedWorkloads?: { names: readonly string[]; why: string };
  /**
   * Workloads whose counts already decided a regression for every head: timed rounds cannot pass them, so
   * they run only `rounds` (the memory judgement's fewest), for the memory and steady costs only timed runs
   * measure (src/flows/compare/pipeline/pipeline.ts), and why.
   */
  memoryRounds?: { names: readonly string[]; rounds: number; why: string };
  /**
   * This run is a part of a larger one (a stored baseline's sentinel rounds and head's remaining rounds): its
   * rounds are not the plan the user chose, so the plan is not checked here (the whole one was, before).
   */
  partOfRun?: boolean;
  /** The arms are one install measured alike (A/A): recorded as `calibration: true`. */
  calibration?: boolean;
  /**
   * Rounds of the confirmation block that re-measures regressed cells after the main rounds, on restarted
   * servers in a new arm order (DEFAULT_CONFIRM_ROUNDS; 0 disables). Not for calibration runs.
   */
  confirmRounds?: number;
  /** Adaptive rounds: looks after blocks of rounds, decided cells stop (replaces every workload's rounds
   * by the plan's maxRounds). `byDefault`: not asked for, so the time budget never stops the run before its
   * first look. */
  adaptive?: { plan: SequentialDesign; timeBudgetS?: number; byDefault?: true };
  /** Where the rounds come from, in the adapter's words, for the plan line (rounds-origin.ts). */
  roundsOrigin?: RoundsOrigin;
  /** Seconds of the machine check before the run (load, steal, busy processes); 0 skips the window. */
  preflightWindowS?: number;
  /** Refuse to measure when the machine check says "not fit for benchmarking". */
  strictPreflight?: boolean;
  /** Sample wait events and counters during every measured run (default true). */
  diagnostics?: boolean;
  /** This run is one shard of a comparison split over machines (recorded in plan.shard). */
  shard?: ShardInfo;
  /**
   * Opt-in machine controls (--cpu-dma-latency, --governor) held over the measured runs: checked before any
   * server starts, applied after the clusters are set up, restored when the run ends however it ends.
   */
  controls?: ControlRequest;
}

export interface RunDeps {
  runner: ProcessRunner;
  logger: Logger;
  /** Aborting stops the current run, keeps what was measured and cleans up. */
  signal?: AbortSignal;
  cpuCount?: number;
  /** The PATH to find taskset/numactl on, for workloads with `cpus` (the adapters pass theirs). */
  searchPath?: string;
  /** Reads a server's counters around each measured run (default takeStatSnapshot; tests make it fail). */
  statSnapshot?: (connection: Connection) => Promise<StatSnapshot>;
}

/** Arm labels and workload names, checked before anything starts (also before the instruction phase). */
export function validateRequest(req: Pick<RunRequest, 'arms' | 'workloads'>): void {
  if (req.arms.length === 0) throw new UserError('no arms: give at least one --arm LABEL=BINDIR');
  const labels = new Set<string>();
  for (const arm of req.arms) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(arm.label)) {
      throw new UserError(
        `--arm ${arm.label}: a label is letters, digits, ".", "_" and "-" (e.g. base, head)`,
      );
    }
    if (labels.has(arm.label))
      throw new UserError(`--arm ${arm.label}: the label is given twice; labels must be unique`);
    labels.add(arm.label);
  }
  if (req.workloads.length === 0) throw new UserError('no workloads: give at least one --workload FILE');
  const names = new Set<string>();
  for (const w of req.workloads) {
    if (names.has(w.name))
      throw new UserError(`workload name "${w.name}" is used by two workload files; names must be unique`);
    names.add(w.name);
  }
}
