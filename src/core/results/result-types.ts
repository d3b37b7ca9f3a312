/**
 * The results document: one versioned JSON file per `pgperf run`, holding everything needed to
 * re-analyse the run without a server (environment, arms, the plan as executed, every raw sample).
 * Bump RESULTS_SCHEMA_VERSION on any incompatible change and teach readResults() to migrate.
 */
import type { CalibrationRecord, RunnerGateRecord } from './calibration-record.js';
import type { RunDiagnostics } from './diagnostics.js';
import type { SteadyRecord } from './steady.js';
import type { BackendMemoryRecord } from './memory.js';
import type { ExplanationRecord, InstructionsRecord } from './instructions.js';
import type { PlansRecord } from './plans.js';
import type { ControlChange } from './control-change.js';
import type { MetricName } from './metrics.js';
import type { SpendingFunction } from '../stats/alpha-spending.js';

export const RESULTS_SCHEMA_VERSION = 1;

export interface RunResult {
  schemaVersion: typeof RESULTS_SCHEMA_VERSION;
  /** pgperf version that wrote the document. */
  pgperfVersion: string;
  /** Unique id of the run (see newRunId), shared by the results file and the store; the store assigns one
   * to documents written before it was recorded. */
  runId?: string;
  /** Environment fingerprint (src/machine/fingerprint.ts), computed when the run ends; the store computes it for
   * older documents. */
  fingerprint?: Fingerprint;
  /** 'running' while measuring (the file is rewritten after every run), then final. */
  status: 'running' | 'complete' | 'interrupted' | 'failed';
  /** Why the run stopped early, when status is 'interrupted' or 'failed'. */
  stopReason?: string;
  startedAt: string;
  updatedAt: string;
  environment: Environment;
  /** Arms in the order given; arms[0] is the baseline the others are compared with. */
  arms: ArmInfo[];
  /** The client binaries (one per tool) that drove every arm alike. */
  clients: ClientInfo[];
  /** The workloads as resolved and validated (defaults applied), keyed by workload name. */
  workloads: Record<string, unknown>;
  /**
   * The hash of the text of each workload's script files (core/results/workload-definition.ts
   * scriptTextsHash), for the workloads that run files of their own: `workloads` names the files, and a
   * file edited under its name measures something else. Absent in documents written before it was recorded.
   */
  workloadScripts?: Record<string, string>;
  /** How the run is analysed (recorded so that the PR comment, `pgperf compare` and the power check agree);
   * absent in documents written before it was recorded, which then get the defaults. */
  analysis?: AnalysisSettings;
  /** CPU pinning per workload with `cpus` (server and client CPU lists, the tool). */
  pinning?: Record<string, { server: number[]; client: number[]; tool: string; warnings: string[] }>;
  /** The adaptive design the run followed and every look it took (src/core/compare/analysis/adaptive.ts). */
  adaptive?: AdaptiveRecord;
  plan: PlanInfo;
  /** Where the arms came from (repository, PR, commits and how they were chosen), for reports. */
  source?: RunSource;
  /** Set when every arm was the same install with the same settings (an A/A run, `pgperf calibrate`): its
   * spread is the runner's noise (src/flows/compare/noise/runner-noise.ts). Absent in older documents. */
  calibration?: true;
  /** Set when arms[0] are stored samples of an earlier run (`--baseline stored`), not measured in this job. */
  baseline?: StoredBaselineInfo;
  /** CPU instructions per transaction from the instruction mode's short runs (absent when it did not run). */
  instructions?: InstructionsRecord;
  /** Differential profiles of the workloads whose throughput changed, taken after the rounds (absent when
   * nothing changed, or the run was told not to explain). */
  explanation?: ExplanationRecord;
  /** Each statement's plan and pg_stat_statements counters per arm, from the plan phase (absent when no
   * workload asked for plans). */
  plans?: PlansRecord;
  /**
   * The confirmation block: regressed cells re-measured after the main rounds, on restarted servers in a new
   * arm order (src/core/compare/analysis/confirmation.ts judges it); absent when no cell regressed or it was disabled.
   */
  confirmation?: ConfirmationRecord;
  /**
   * What each head arm's compiled code has in common with base's (src/postgres/builds/compiled-code.ts),
   * checked before anything is measured; absent when the arms were not compared (A/A runs, one arm, stored
   * baselines, documents written before it was recorded). Every head identical: nothing was measured.
   */
  compiledCode?: CompiledCodeComparison[];
  /** What the answer cost (src/core/results/answer-cost.ts); absent in documents from before it was recorded. */
  cost?: AnswerCost;
  /** On an A/A calibration: the gate's false alarms and its injected drills caught (calibration-record.ts). */
  calibrationRecord?: CalibrationRecord;
  /** On a comparison: the runner's stored calibrations summed, as known when it ran (calibration-record.ts). */
  gateRecord?: RunnerGateRecord;
  samples: Sample[];
  warnings: string[];
}

/** What one comparison's answer cost, in wall seconds of this job, by stage. */
export interface AnswerCost {
  /** Building (or finding in the cache) the arms; 0 for installs given as bin dirs. */
  buildS: number;
  /** The counted runs: instruction counts, plans and profiles (0 when none ran). */
  countedS: number;
  /** Timed rounds measured (main rounds; the confirmation block's are in timedS). */
  timedRounds: number;
  /** The timed rounds, the warm-ups and the confirmation block. */
  timedS: number;
  /** From the first check to the analysed document. */
  wallS: number;
}

/** One head arm's programs, libraries and data files against base's, after masking their install paths. */
export interface CompiledCodeComparison {
  head: string;
  /** Every compared file the same (after masking) and the same files present: the same compiled code. */
  identical: boolean;
  /**
   * Files compared: every file of the install the server and its tools can load or read (programs,
   * libraries, modules, JIT bitcode, share/ and a Debian layout's `<sharedir>/`, unknown files; links by
   * what they point to), src/postgres/builds/install-files.ts.
   */
  files: number;
  /**
   * Files that differ or exist in one install only ("bin/postgres", "lib/postgresql/plpgsql.so"), with why
   * when no bytes were compared ("lib/x.so (a link out of the install (to /opt/x.so))"); at most 50.
   */
  differingFiles: string[];
  /** How many files differ in all (differingFiles is cut at 50). */
  differingCount: number;
  /** In the server binary: the functions whose code differs (symbol-level), when it differs. */
  serverFunctions?: {
    /**
     * Size changed, added or removed first, then same size with other instructions, then those changed only
     * in immediates (immediatesOnly); at most 50 names. Without `method` (documents written before it) or
     * with 'bytes', every function of the same size whose bytes differ is here, moved ones included.
     */
    changed: string[];
    /** How many functions changed in all, those changed only in immediates included. */
    changedCount: number;
    /** Defined functions in head's binary. */
    total: number;
    /**
     * Functions whose instructions are base's but for immediates and displacement constants (a `__LINE__`
     * that a comment moved): counted in changedCount, and named here too; at most 50 names.
     */
    immediatesOnly?: string[];
    immediatesOnlyCount?: number;
    /**
     * Functions whose bytes differ but whose instructions are base's once call, jump and RIP-relative
     * addresses are taken out: they only moved (a function before them changed size). Not in changedCount.
     */
    movedOnlyCount?: number;
    /** Every changed function's name (changed's order, immediates-only ones included), when at most 5000. */
    all?: string[];
    /**
     * How functions of the same size were compared: 'disassembly' (objdump, addresses taken out; also
     * when no such function differed) or 'bytes' (byte for byte: moved functions count as changed).
     */
    method?: 'disassembly' | 'bytes';
    /** Why the bytes were compared (objdump missing or failing, not x86-64). */
    note?: string;
  };
  /** Why the installs could not be compared (then the arm was measured as usual). */
  unknown?: string;
}

/** The stored run a `--baseline stored` comparison used as its base (src/flows/compare/baseline/stored-baseline.ts). */
export interface StoredBaselineInfo {
  /** Store id of the run the base samples come from. */
  runId: string;
  /** The base arm's commit sha and ref, when recorded. */
  commit?: string;
  ref?: string;
  /** When the store saved that run (ISO). */
  storedAt: string;
  /** When that run was measured (ISO); ageDays counts from here. */
  measuredAt: string;
  /** Days between the stored run's measurement and this run's start. */
  ageDays: number;
  /** Fingerprint facts that differ, when the user allowed a mismatch (--allow-fingerprint-mismatch). */
  fingerprintMismatch?: string[];
  /** The drift check: the base install re-measured now against its stored samples. */
  sentinel: SentinelOutcome;
}

export interface SentinelOutcome {
  /** 'skipped': not measured (0 rounds, or the install is gone); 'drifted': the base moved beyond the threshold. */
  status: 'steady' | 'drifted' | 'skipped';
  /** One sentence for the report. */
  reason: string;
  /** What a drift does to the comparison. */
  onDrift: 'refuse' | 'inconclusive';
}

/** The analysis settings a run was planned and is judged with. */
export interface AnalysisSettings {
  /** Family-wise false-alarm rate. */
  alpha: number;
  /** Practical threshold δ in percent (workloads may override it with their own `threshold`). */
  thresholdPct: number;
  /** The metric that decides the verdict. */
  metric: MetricName;
  /**
   * Up to which client count unchanged instructions per transaction may pass a cell the timed metric left
   * undecided (src/core/compare/evidence/steady-evidence.ts): a count, 'all', or 0 (never). Absent: 1.
   */
  steadyPass?: number | 'all';
  /**
   * Noise floors learned from this runner's nightly history before the run (src/flows/compare/noise/noise-floors.ts):
   * a cell and metric with one is judged at the larger of its configured threshold and its floor
   * (src/core/compare/analysis/history-threshold.ts). Absent: no store, or no history long enough.
   */
  noiseFloors?: NoiseFloor[];
}

/** A cell's noise floor for one metric, from the adjacent changes of its nightly history on this runner. */
export interface NoiseFloor extends CellKey {
  metric: MetricName;
  /** Q3 + 1.5·IQR of the absolute changes between adjacent nightly runs' medians, in percent (noise-floor.ts). */
  floorPct: number;
  /** Nightly runs behind it, and the dates of the oldest and newest. */
  runs: number;
  from: string;
  to: string;
  /**
   * Which runs: the run ids of the oldest and newest, of the branch the nightly job measured (null: runs
   * that name none) and of the workload definition (workloadDefinitionHash) the cell runs now; every one-arm
   * run of that runner, branch and definition between them, up to the newest FLOOR_WINDOW. Absent in
   * documents written before they were recorded.
   */
  firstRunId?: string;
  lastRunId?: string;
  branch?: string | null;
  definition?: string;
}

export interface Environment {
  hostname: string;
  os: string;
  kernel: string;
  arch: string;
  cpuModel: string;
  cpuCount: number;
  memoryBytes: number;
  /** Extra machine facts (governor, SMT, THP, ...) where readable; absent keys were unreadable. */
  facts: Record<string, string>;
  nodeVersion: string;
  /** Hash over the rendered postgresql.conf of every arm, so series are never mixed across settings. */
  settingsHash: string;
  /** The machine check before the run (pgperf doctor's report). */
  preflight?: PreflightReport;
  /**
   * Machine controls held over the measured runs (--cpu-dma-latency, --governor), each with its file and the
   * value before; all were restored after the run. `facts` keep the machine's own values, read before.
   */
  controls?: ControlChange[];
}

export interface ArmInfo {
  label: string;
  binDir: string;
  /** `postgres --version` of this arm, e.g. "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)". */
  serverVersion: string;
  /** Settings applied to this arm only (normally empty: arms share one postgresql.conf). */
  settingOverrides: Record<string, string>;
  /** Where this arm came from when pgperf built it (filled by the build stage). */
  build?: BuildRecord;
}

export interface RunSource {
  repository?: string;
  prNumber?: number;
  /** The workflow run that measured it (linked from reports). */
  runUrl?: string;
  base?: CommitRef;
  head?: CommitRef;
  /**
   * A nightly's runner canary: a frozen build measured beside tonight's head, its own series; a change point
   * there is runner drift, not PostgreSQL (src/core/history/night-watch.ts).
   */
  canary?: boolean;
  /** The commitfest entry head was built from (cfbot's branch `cf/<id>`; src/postgres/builds/commitfest.ts). */
  commitfest?: CommitfestEntry;
}

/** A PostgreSQL commitfest entry: its id and the cfbot branch holding its latest patch set. */
export interface CommitfestEntry {
  id: number;
  /** `cf/<id>`. */
  branch: string;
}

export interface CommitRef {
  ref?: string;
  sha?: string;
  /** How the commit was chosen, e.g. "merge-base of master and the PR head". */
  chosenBy?: string;
  /** The commit's committer date (ISO 8601), when known: a backfilled night records it beside its run date. */
  committedAt?: string;
}

export interface ClientInfo {
  /** The registered tool that drove the runs (src/drivers/registry.ts). */
  tool: string;
  binDir: string;
  version: string;
}

export interface PlanInfo {
  seed: number;
  order: 'random' | 'abba';
  rounds: number;
  /** Cells in declaration order. */
  cells: CellKey[];
  /** Every run the loop started, in the order it ran (warm-ups and retries included). */
  executed: ExecutedRun[];
  /** Set when this run is one shard of a comparison split over machines (index 0: consolidated). */
  shard?: ShardInfo;
}

export interface CellKey {
  workload: string;
  clients: number;
}

export interface ExecutedRun {
  round: number;
  workload: string;
  clients: number;
  arm: string;
  kind: 'warmup' | 'measured';
  attempt: number;
  status: 'ok' | 'failed';
}

export interface Sample {
  /** 1-based round number. */
  round: number;
  workload: string;
  clients: number;
  arm: string;
  /** 1 for the first try; retries of a failed run count up. */
  attempt: number;
  status: 'ok' | 'failed';
  /** Why the run failed (exit code, aborted run, failed transactions, lost clients). */
  failureReason?: string;
  startedAt: string;
  endedAt: string;
  /** Seed passed to the client (--random-seed / --rand-seed) for this round. */
  randomSeed: number;
  /** Headline numbers of the run (TPS, latency, ...); see METRICS for units and direction. */
  metrics: Partial<Record<MetricName, number>>;
  /** Counters from the report (transactions, failed, skipped, ...). */
  counts: Record<string, number>;
  /** Per-interval progress, a diagnostic series (t = seconds since start). */
  progress: ProgressPoint[];
  /** The exact command line that produced the sample. */
  command: string[];
  exitCode: number | null;
  /** Wait events and counter deltas sampled during the run (src/postgres/wait-events.ts). */
  diagnostics?: RunDiagnostics;
  /**
   * The server counter deltas behind the steady per-transaction metrics (walBytesPerTx, ...) and the
   * transactions they were divided by (src/core/results/steady.ts); absent when no snapshot could be taken.
   */
  steady?: SteadyRecord;
  /** The backends' private memory during the run, or why it was not recorded (src/core/results/memory.ts). */
  memory?: BackendMemoryRecord;
}

export interface ProgressPoint {
  t: number;
  tps: number;
  latencyAvgMs?: number;
  latencyStddevMs?: number;
  failed?: number;
  /** sysbench: queries per second in the interval. */
  qps?: number;
  /** sysbench: the latency percentile of the interval (its interval lines give no average). */
  latencyPctMs?: number;
  /** sysbench: errors it ignored (deadlocks, duplicate keys, ...) per second in the interval. */
  ignoredErrorsPerS?: number;
}

/** Stable identifier of a cell, used as a key in maps and reports. */
export function cellId(cell: CellKey): string {
  return `${cell.workload}@${cell.clients}`;
}

// Records of other floors the document keeps: defined here, on the lowest floor that needs them.

/**
 * 'not-worse': head is not worse than base by δ or more (non-inferiority: the one-sided bound excludes −δ on
 * the worse side) while the interval reaches beyond +δ, so it is not 'no-change' (equivalence). It passes.
 */
export type Verdict = 'regression' | 'improvement' | 'no-change' | 'not-worse' | 'inconclusive';

/**
 * The primary test: 'signed-rank' is the Wilcoxon signed-rank test on the per-round log-ratios ln(head/base)
 * with the Walsh-average Hodges–Lehmann estimate and interval (compareRun's default: base and head run back
 * to back in a round, so what the round shares cancels); 'mann-whitney' is the unpaired rank-sum test with
 * the two-sample Hodges–Lehmann estimate (compareSamples, and cells with too few complete rounds);
 * 'instruction-count' is the instruction mode's own rule on near-deterministic counts
 * (src/core/compare/analysis/instruction-verdict.ts), never an adaptive design's test; 'memory-floor' is the
 * default rule of memory metrics no workload gates (src/core/compare/analysis/memory-verdict.ts).
 */
export type PrimaryTest = 'signed-rank' | 'mann-whitney' | 'instruction-count' | 'memory-floor';

/** A pre-declared adaptive design; serialisable (put it into results.json as is). */
export interface SequentialDesign {
  /** Cumulative rounds at each look actually taken; the last one is maxRounds. */
  schedule: number[];
  maxRounds: number;
  alpha: number;
  spending: SpendingFunction;
  test: PrimaryTest;
  /** Information fraction of each look: rounds / maxRounds. */
  informationFractions: number[];
  /** α spent by each look, α(t_k). */
  cumulativeAlpha: number[];
  /** Nominal level each look tests at (Holm across cells within the look): α(t_k) − α(t_{k−1}). */
  lookAlpha: number[];
  /**
   * α the pass question (non-inferiority, "head not worse than base by δ"; and no-change, TOST at the same
   * level) spends at each look, one-sided, per cell; Σ ≤ passAlphaTotal. Its own spending, front-loaded (passLevels
   * in src/core/compare/analysis/adaptive.ts). Absent in plans written before it existed (sequentialDesignFromJson recomputes).
   */
  passAlpha?: number[];
  /** The pass question's one-sided α per cell (Σ passAlpha ≤ it); absent in plans written before it was its
   * own setting, which passed at `alpha`. */
  passAlphaTotal?: number;
  /** Level of the pass interval at each look: 1 − 2·(the look's nominal pass level). */
  equivalenceLevels: number[];
  /** How per-look levels were derived, for the report. */
  method: 'bonferroni-spent-increments';
}

/** What one look concluded; serialisable (results.json: adaptive.looks[]). */
export interface AdaptiveLookOutcome {
  look: number;
  /** Rounds analysed: exactly the rounds ≤ plan.schedule[look − 1]. */
  rounds: number;
  lookAlpha: number;
  equivalenceLevel: number;
  /** Hypotheses decided at this look ("head:cellId", plus " p99" for another gated metric → verdict). */
  decided: Array<{ id: string; verdict: Verdict }>;
  /** "head:cellId" (plus the metric, as in decided) of the hypotheses still open after this look. */
  open: string[];
  stop: boolean;
  reason: string;
}

/** What results.json records of a confirmation block (field `confirmation`). */
export interface ConfirmationRecord {
  /** Rounds the block planned for each of its cells. */
  rounds: number;
  /** Seed of the block's arm order (derived from the run's seed). */
  seed: number;
  /** The hypotheses it re-measures: a head arm, a cell and the metric that regressed. */
  cells: Array<{ head: string; workload: string; clients: number; metric: MetricName }>;
  /** Its measured runs, rounds numbered 1… within the block; never part of `samples`. */
  samples: Sample[];
}

/** What results.json records of an adaptive run (field `adaptive`): the plan and every look taken. */
export interface AdaptiveRecord {
  plan: SequentialDesign;
  looks: AdaptiveLookOutcome[];
}

export interface Fingerprint {
  /** First 16 hex characters of the sha256 of the canonical JSON of `facts`. */
  id: string;
  /** The facts hashed, by name; absent facts (unreadable on that machine) are left out, not guessed. */
  facts: Record<string, string>;
}

export type FactVerdict = 'ok' | 'warn' | 'bad';

/**
 * The sysfs/procfs groups every preflight reads (recorded in results.json), then the runner's own groups that
 * only `pgperf doctor` reports: the programs pgperf runs, free disk, the user PostgreSQL runs as.
 */
export type FactGroup =
  | 'cpu'
  | 'frequency'
  | 'idle'
  | 'memory'
  | 'kernel'
  | 'virtualisation'
  | 'load'
  | 'limits'
  | 'tools'
  | 'disk'
  | 'users';

export type PreflightVerdict = 'ready' | 'usable with warnings' | 'not fit for benchmarking';

export interface Fact {
  /** Stable key, e.g. "governor"; results store facts under it. */
  id: string;
  group: FactGroup;
  /** What it is, in words. */
  name: string;
  /** What this machine has (plain text). */
  value: string;
  verdict: FactVerdict;
  /** Why the verdict is warn or bad. */
  why?: string;
  /** The command (or, where there is none, the action) that fixes it. */
  fix?: string;
}

export interface PreflightReport {
  verdict: PreflightVerdict;
  facts: Fact[];
  topology: Topology;
  /** Seconds between the two load samples. */
  windowS: number;
  capturedAt: string;
}

export interface LogicalCpu {
  cpu: number;
  /** physical_package_id. */
  socket: number;
  /** core_id (unique within a socket only). */
  core: number;
  /** NUMA node (0 when the kernel exposes none). */
  node: number;
  /** This CPU and its SMT siblings (thread_siblings_list). */
  siblings: number[];
  /** CPUs sharing this CPU's L3 (shared_cpu_list of the level-3 cache under cache/), when exposed. */
  l3?: number[];
}

export interface Topology {
  /** Online logical CPUs. */
  cpus: LogicalCpu[];
  logicalCpus: number;
  sockets: number;
  /** Physical cores: distinct sibling groups. */
  cores: number;
  /** Logical CPUs per core (1 = no SMT). */
  threadsPerCore: number;
  /** /sys/devices/system/cpu/smt/control: on, off, forceoff, notsupported, notimplemented. */
  smtControl?: string;
  numaNodes: Array<{ node: number; cpus: number[] }>;
  /** Groups of CPUs that share an L3 (one per CCX on AMD, one per socket on most Intel). */
  l3Groups: number[][];
}

/**
 * What a shard's results record (results.json plan.shard): the plan's identity, which shard this is, and
 * the digest of its samples. `assignment`, `planHash` and `samplesDigest` are absent in documents written
 * before shards were verified; consolidation then checks what it can without them and says so.
 */
export interface ShardInfo {
  planId: string;
  /** 1-based (0: a consolidated document, the merge of every shard). */
  index: number;
  count: number;
  /** Every cell of the whole plan, so consolidation can name what is missing. */
  allCells: CellKey[];
  /** The split: `assignment[i - 1]` are the cells of shard i, as planShards made them. */
  assignment?: CellKey[][];
  /** SHA-256 of planId, count, allCells and assignment (shard-digest.ts planHashOf): equal in every shard. */
  planHash?: string;
  /** SHA-256 of this document's samples (shard-digest.ts samplesDigestOf), rewritten with every write. */
  samplesDigest?: string;
}

export type Phase = 'resolve' | 'fetch' | 'patch' | 'configure' | 'compile' | 'install';

/** What was built, how and from what; stored in the install's marker and in results arms[].build. */
export interface BuildRecord {
  repo: string;
  ref: string;
  sha: string;
  patches: Array<{ file: string; sha256: string }>;
  baseChosenBy?: string;
  key: string;
  buildSystem: BuildSystem;
  /** The full meson setup / configure option list. */
  options: string[];
  /** The compiler command the build ran (with ccache when installed). */
  cc: string;
  compiler: Compiler;
  platform: Platform;
  /** `pg_config --cflags` of the result. */
  cflags: string;
  serverVersion: string;
  /** ccache hits and misses of the compile step. */
  ccache?: CcacheStats;
  /** Seconds per phase of the build that produced the install. */
  durationsS: Partial<Record<Phase, number>>;
  builtAt: string;
  /** True when this run found the install in the cache. */
  cacheHit: boolean;
  /** Seconds this run spent on a cache hit (resolving the ref and finding the install). */
  hitS?: number;
  /** Of hitS, the seconds spent waiting for another process that was building the same install. */
  lockWaitS?: number;
  installPrefix: string;
  logFile: string;
  pgperfVersion: string;
}

export type BuildSystem = 'meson' | 'autoconf';

export interface Compiler {
  /** The command builds run, e.g. "gcc" (without ccache). */
  command: string;
  /** Its resolved path. */
  path: string;
  /** First line of `--version`, e.g. "gcc (Debian 12.2.0-14+deb12u1) 12.2.0". */
  version: string;
  /** Target triple (`-dumpmachine`), e.g. "x86_64-linux-gnu". */
  target: string;
}

export interface Platform {
  os: string;
  arch: string;
  /** Distribution and release from /etc/os-release, e.g. "debian 12" (libraries differ between them). */
  release: string;
}

export interface CcacheStats {
  hits: number;
  misses: number;
  /** hits / (hits + misses), 0 when nothing was compiled. */
  hitRate: number;
}
