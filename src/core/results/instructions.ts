/**
 * What results.json records of the instruction mode (field `instructions`): CPU instructions the backends
 * execute per transaction, counted in short fixed-transaction runs beside the timed rounds
 * (docs/instructions.md). Every repetition's raw counts are kept, so `pgperf compare` recomputes the
 * per-transaction figures and the verdicts from the document alone.
 */

/** The counter that produced the counts: simulated (valgrind's cachegrind) or the CPU's own (perf). */
type InstructionCounter = 'cachegrind' | 'perf';

/** The instruction mode of one workload, as resolved (defaults filled in). */
export interface InstructionSettings {
  /** Transactions of the short and the long run; per-transaction = (I_long − I_short) / (long − short). */
  short: number;
  long: number;
  /** Uncounted transactions run once per server before the first repetition (after pg_prewarm). */
  warmup: number;
  /** Repetitions per arm (interleaved base/head), for the per-arm spread. */
  repetitions: number;
  /** Practical threshold in percent of the instruction verdict. */
  thresholdPct: number;
}

export const DEFAULT_INSTRUCTION_SETTINGS: InstructionSettings = {
  short: 200,
  long: 1200,
  warmup: 200,
  repetitions: 3,
  thresholdPct: 1,
};

/** One repetition of one arm in one cell. */
export interface InstructionSample {
  workload: string;
  clients: number;
  arm: string;
  /** 1-based. */
  repetition: number;
  counter: InstructionCounter;
  /** Instructions of the client's backends over the short and the long run (connection and exit included). */
  shortInstructions: number;
  longInstructions: number;
  /** (long − short instructions) / (long − short transactions). */
  perTx: number;
}

/** One function's self cost per transaction in base and head (a differential profile's row). */
export interface ProfileMover {
  fn: string;
  /** Source file cachegrind attributes the function to (may be "???" without debug info). */
  file: string;
  baseIrPerTx: number;
  headIrPerTx: number;
  /** head − base. */
  deltaIrPerTx: number;
}

/** The differential profile of a cell: base vs one head arm, from the same cachegrind files as the counts. */
export interface InstructionProfile {
  workload: string;
  clients: number;
  base: string;
  head: string;
  /** The full profile (every function), relative to the run directory. */
  file: string;
  /** The largest movers by |delta|, largest first. */
  movers: ProfileMover[];
}

export interface InstructionsRecord {
  counter: InstructionCounter;
  /** Per workload (by name): the settings its cells were measured with. */
  settings: Record<string, InstructionSettings>;
  /** Wall time of the whole instruction phase. */
  wallS: number;
  samples: InstructionSample[];
  profiles: InstructionProfile[];
  /**
   * Cells that could not be measured, and why; `arm` when only that head was not counted. `offered`: the
   * counts were pgperf's default evidence, not asked for, so the failure leaves that head's (or the
   * workload's) answer to its timed rounds instead of holding it pending.
   */
  failures: Array<{ workload: string; arm?: string; reason: string; offered?: boolean }>;
  /** What the report should say (e.g. a cell measured at 1 client while the workload's cells use more). */
  notes: string[];
  /**
   * Per head arm and counted workload: which of the functions whose code head changed (the compiled-code
   * comparison's full list) the counting servers executed. Absent when no such list was given or no
   * per-function profile was taken (the CPU's counter); a pair is missing when its profiles could not be read.
   */
  changedCode?: ChangedCodeRun[];
}

/** Which of a head's changed functions one workload's counted runs executed. */
export interface ChangedCodeRun {
  workload: string;
  head: string;
  /** How many functions head changed (every name of the compiled-code comparison's list). */
  changedCount: number;
  /**
   * The changed functions with self instructions in any process of base's or head's counting server
   * (backends, background processes, the postmaster) from its start under the counter to its stop; at most
   * 50 names.
   */
  executed: string[];
  executedCount: number;
}

/** Instructions per transaction from the two runs' totals. */
export function perTransaction(
  shortInstructions: number,
  longInstructions: number,
  s: Pick<InstructionSettings, 'short' | 'long'>,
): number {
  return (longInstructions - shortInstructions) / (s.long - s.short);
}

/** A record with nothing counted yet (the simulated counter: the only one used so far). */
export function emptyInstructionsRecord(): InstructionsRecord {
  return {
    counter: 'cachegrind',
    settings: {},
    wallS: 0,
    samples: [],
    profiles: [],
    failures: [],
    notes: [],
  };
}

/** One profile the explain phase takes: a head arm against base in one workload, and the cells that changed. */
export interface ExplainTarget {
  head: string;
  workload: string;
  /** Cell ids whose throughput changed ("workload@clients"). */
  cells: string[];
}

/**
 * What results.json records of the explain phase (field `explanation`, src/run/counted/explain-phase.ts):
 * the differential profiles of the workloads whose throughput changed, counted like the instruction mode
 * (one repetition), and which changed cells asked for them.
 */
export interface ExplanationRecord extends InstructionsRecord {
  targets: ExplainTarget[];
}
