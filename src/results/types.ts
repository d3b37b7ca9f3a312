/**
 * The results document: one versioned JSON file per `pgperf run`, holding everything needed to
 * re-analyse the run without a server (environment, arms, the plan as executed, every raw sample).
 * Bump RESULTS_SCHEMA_VERSION on any incompatible change and teach readResults() to migrate.
 */
import type { BuildRecord } from '../pg-build/build-record.js';
import type { AdaptiveRecord } from '../compare/adaptive.js';
import type { RunDiagnostics } from '../diagnostics/types.js';
import type { ControlChange } from '../env/control-change.js';
import type { Fingerprint } from '../env/fingerprint.js';
import type { PreflightReport } from '../env/preflight.js';
import type { ShardInfo } from '../fleet/shards.js';
import type { MetricName } from './metrics.js';

export const RESULTS_SCHEMA_VERSION = 1;

export interface RunResult {
  schemaVersion: typeof RESULTS_SCHEMA_VERSION;
  /** pgperf version that wrote the document. */
  pgperfVersion: string;
  /** Unique id of the run (see newRunId), shared by the results file and the store; the store assigns one
   * to documents written before it was recorded. */
  runId?: string;
  /** Environment fingerprint (src/env/fingerprint.ts), computed when the run ends; the store computes it for
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
  /** How the run is analysed (recorded so that the PR comment, `pgperf compare` and the power check agree);
   * absent in documents written before it was recorded, which then get the defaults. */
  analysis?: AnalysisSettings;
  /** CPU pinning per workload with `cpus` (server and client CPU lists, the tool). */
  pinning?: Record<string, { server: number[]; client: number[]; tool: string; warnings: string[] }>;
  /** The adaptive design the run followed and every look it took (src/compare/adaptive.ts). */
  adaptive?: AdaptiveRecord;
  plan: PlanInfo;
  /** Where the arms came from (repository, PR, commits and how they were chosen), for reports. */
  source?: RunSource;
  /** Set when every arm was the same install with the same settings (an A/A run, `pgperf calibrate`): its
   * spread is the runner's noise (src/pipeline/runner-noise.ts). Absent in older documents. */
  calibration?: true;
  /** Set when arms[0] are stored samples of an earlier run (`--baseline stored`), not measured in this job. */
  baseline?: StoredBaselineInfo;
  samples: Sample[];
  warnings: string[];
}

/** The stored run a `--baseline stored` comparison used as its base (src/pipeline/stored-baseline.ts). */
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
}

export interface CommitRef {
  ref?: string;
  sha?: string;
  /** How the commit was chosen, e.g. "merge-base of master and the PR head". */
  chosenBy?: string;
}

export interface ClientInfo {
  tool: 'pgbench' | 'sysbench';
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
  /** Wait events and counter deltas sampled during the run (src/diagnostics). */
  diagnostics?: RunDiagnostics;
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
