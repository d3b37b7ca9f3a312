/** What every driver does the same way, whatever the client behind it. */
import type { ProgressPoint } from '../../core/results/result-types.js';
import type { ProcessResult } from '../../machine/os/process.js';
import type { BenchTarget, RunOutcome } from './driver.js';

/** Extra time a run may take past its duration (connection setup, report) before it is killed. */
export const RUN_GRACE_S = 120;

export interface ResetOptions {
  /** Tables emptied first (e.g. pgbench_history, which pgbench itself truncates unless -n). */
  truncate?: string[];
  vacuum: boolean;
  checkpoint: boolean;
}

/**
 * Brings a cluster to the same state before every measured run, so that dead rows and dirty buffers
 * left by the previous run (of any arm or cell) do not carry over: TRUNCATE, VACUUM, CHECKPOINT.
 */
export async function resetBeforeRun(target: BenchTarget, options: ResetOptions): Promise<void> {
  for (const table of options.truncate ?? []) await target.psql(`TRUNCATE ${table}`);
  if (options.vacuum) await target.psql('VACUUM');
  if (options.checkpoint) await target.psql('CHECKPOINT');
}

/** A client run as its judge sees it: a process that could not start has no exit code and says why. */
export function judgeInput(res: ProcessResult, tool: string) {
  return {
    exitCode: res.spawnError ? null : res.exitCode,
    signal: res.signal,
    stdout: res.stdout,
    stderr: res.spawnError ? `could not start ${tool}: ${res.spawnError}` : res.stderr,
  };
}

export type Judgement<R> = { ok: true; report: R } | { ok: false; reason: string; report?: R };

/** The outcome of one finished run: the judgement, plus what the driver read off the report. */
export function runOutcome<R>(
  res: ProcessResult,
  judged: Judgement<R>,
  read: {
    startedAt: string;
    endedAt: string;
    metrics: (report: R) => RunOutcome['metrics'];
    counts: (report: R) => RunOutcome['counts'];
    progress: (report: R | undefined) => ProgressPoint[];
  },
): RunOutcome {
  const report = judged.report;
  return {
    ok: judged.ok,
    failureReason: judged.ok ? undefined : res.timedOut ? `timed out: ${judged.reason}` : judged.reason,
    metrics: report ? read.metrics(report) : {},
    counts: report ? read.counts(report) : {},
    progress: read.progress(report),
    command: res.command,
    exitCode: res.exitCode,
    startedAt: read.startedAt,
    endedAt: read.endedAt,
  };
}
