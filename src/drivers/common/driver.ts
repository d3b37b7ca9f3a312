/**
 * One interface for every benchmark client (pgbench, sysbench, any registered tool): load data once per
 * arm, bring the cluster to the same state before each measured run, run one measurement, and hand back
 * the numbers as a sample. The run loop knows nothing about the tool behind it.
 */
import type { z } from 'zod';
import type { Connection, ServerVersion } from '../../postgres/cluster/cluster.js';
import type { Logger } from '../../core/util/logger.js';
import type { ChildUser, ProcessRunner } from '../../machine/os/process.js';
import type { MetricName } from '../../core/results/metrics.js';
import type { ClientInfo, ProgressPoint } from '../../core/results/result-types.js';

/** What a driver needs of a running cluster. */
export interface BenchTarget {
  label: string;
  connection: Connection;
  version: ServerVersion;
  psql(sql: string): Promise<string>;
  /** The last lines of the server log, for error messages (PgCluster has it). */
  logTail?(lines?: number): Promise<string>;
}

export interface RunSpec {
  clients: number;
  durationS: number;
  /** Seed for the client's random generator; the same for every arm within a round. */
  seed: number;
  signal?: AbortSignal;
  onProgress?: (point: ProgressPoint) => void;
}

/** What every tool's command line takes from the target and the spec of one measured run. */
export interface MeasuredRun {
  connection: Connection;
  /** Client connections (pgbench -c) or threads (sysbench --threads): the cell's entry of `clients`. */
  clients: number;
  durationS: number;
  seed: number;
}

export function measuredRun(target: BenchTarget, spec: RunSpec): MeasuredRun {
  return { connection: target.connection, clients: spec.clients, durationS: spec.durationS, seed: spec.seed };
}

/**
 * One counted run (Driver.runTransactions): a fixed number of transactions per client instead of a
 * duration, for measurements that difference two run lengths or read counters over one run.
 */
export interface CountedRunSpec {
  clients: number;
  transactions: number;
  seed: number;
  /** The application name its connections carry: the caller finds their backends by it in the server log. */
  applicationName: string;
  signal?: AbortSignal;
}

export interface RunOutcome {
  ok: boolean;
  /** One line saying why the run does not count (exit code, aborted run, failed transactions, ...). */
  failureReason?: string;
  metrics: Partial<Record<MetricName, number>>;
  counts: Record<string, number>;
  progress: ProgressPoint[];
  command: string[];
  exitCode: number | null;
  startedAt: string;
  endedAt: string;
}

export interface Driver {
  /** The client binary and its version (one client drives every arm). */
  client(): Promise<ClientInfo>;
  /**
   * Checks, before any server starts, that the client can read every file the workload names (as the user
   * it runs as); throws a UserError naming the file otherwise.
   */
  checkFiles?(): Promise<void>;
  /** Loads the workload's data set into a fresh cluster. */
  prepare(target: BenchTarget, signal?: AbortSignal): Promise<void>;
  /** Resets state that would otherwise carry over between runs (VACUUM, CHECKPOINT). */
  beforeRun(target: BenchTarget): Promise<void>;
  run(target: BenchTarget, spec: RunSpec): Promise<RunOutcome>;
  /**
   * Runs exactly `spec.transactions` per client, plainly (no progress, no pipeline, no transaction log);
   * throws when the run fails. Absent when the tool runs for a time only: the measurements that need
   * counted runs (instruction counts, per-statement counters) refuse its workloads.
   */
  runTransactions?(target: BenchTarget, spec: CountedRunSpec): Promise<void>;
  /**
   * Removes what prepare() created, for clusters that outlive a run. The run loop does not call it: it
   * removes each cluster whole at the end.
   */
  cleanup?(target: BenchTarget, signal?: AbortSignal): Promise<void>;
}

export interface DriverDeps {
  /** Bin dir of the benchmark client's tools (psql, pgbench): one client drives every arm. */
  clientBinDir: string;
  cpuCount: number;
  runner: ProcessRunner;
  logger: Logger;
  /** Directories searched for clients that do not ship with PostgreSQL (sysbench). */
  searchPath: string;
  /**
   * The unprivileged user `runner` runs the client as (pgperf as root): files the client writes go into
   * directories that user owns. Absent: the client runs as pgperf's own user.
   */
  clientUser?: ChildUser;
  /**
   * The run's stop signal: it ends the checks before any server starts (the client's version, the files it
   * reads), each also bounded by a deadline of its own (PROBE_TIMEOUT_MS), so a client that never answers
   * holds neither the run nor a Ctrl-C. The measured runs take theirs from RunSpec.
   */
  signal?: AbortSignal;
}

/**
 * A tool's whole contribution, exported by its folder's module.ts: the workload file's section for the tool
 * (a zod object told apart by its `tool` literal), the metrics its samples always carry, the driver, and
 * what its prepared data set depends on. The registry lists modules; the workload schema, its types, the
 * JSON Schema, the recorded metrics and the driver lookup derive from that list.
 */
export interface DriverModule<S extends z.ZodType<{ tool: string }>> {
  tool: z.output<S>['tool'];
  schema: S;
  /**
   * The metrics every successful run of the tool records, whatever the workload gates on (what its report
   * always gives). Metrics a workload asks for on top (p95, p99) and the server's steady counters are
   * added by recorded-metrics.ts.
   */
  records: readonly MetricName[];
  create(workload: z.output<S>, deps: DriverDeps): Driver;
  /**
   * What the prepared data set depends on: workloads of one tool with equal shapes (and settings) share
   * one cluster per arm.
   */
  dataSetShape(workload: z.output<S>): unknown;
  /**
   * The SQL statements the workload's transactions run, each with a plannable form where it has one: what
   * the plan phases explain. A tool without it has no plans taken.
   */
  statements?(workload: z.output<S>): Promise<WorkloadStatement[]>;
  /**
   * The files of the workload's own that its runs execute (custom scripts), in the order it lists them: their
   * text is part of what the workload measures, recorded as a hash with the run (`workloadScripts`).
   */
  scriptFiles?(workload: z.output<S>): readonly string[];
}

/** One SQL statement of a workload, and the form EXPLAIN can plan (its variables given values), if any. */
export interface WorkloadStatement {
  statement: string;
  explained?: string;
}
