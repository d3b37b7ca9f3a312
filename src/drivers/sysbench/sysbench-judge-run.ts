/**
 * Decides whether one sysbench run produced a usable measurement. The run loop records a failed run with
 * the reason and retries it; this function only judges.
 *
 * sysbench 1.0.x prints everything to stdout. A failing run prints "FATAL: ..." lines: a connection or
 * thread-init failure exits 1 without a report, an SQL error that is not ignored stops its thread
 * ("FATAL: `thread_run' function failed") and the run exits 1; a `prepare` failing in its worker
 * threads (--threads > 1) prints FATAL lines and still exits 0, so FATAL lines fail a run whatever the
 * exit code. The pgsql driver silently rolls
 * back and retries events that hit a deadlock (40P01), a unique violation (23505) or a serialization
 * failure (40001), counting them as "ignored errors": a run with more of them than the workload allows
 * measures error handling rather than the workload, and is failed with the numbers.
 */
import { parseSysbenchOutput, sysbenchFatalMessages, type SysbenchReport } from './parse-output.js';

export interface SysbenchJudgeInput {
  exitCode: number | null;
  signal?: string | null;
  stdout: string;
  stderr: string;
  /** The --threads the run was started with. */
  expectedThreads: number;
  /** The workload's maxIgnoredErrorsPct. */
  maxIgnoredErrorsPct: number;
}

export type SysbenchJudgeResult =
  { ok: true; report: SysbenchReport } | { ok: false; reason: string; report?: SysbenchReport };

/** Ignored errors as a percentage of transaction attempts (completed + ignored). */
export function ignoredErrorsPct(r: SysbenchReport): number | undefined {
  if (r.ignoredErrors === undefined || r.transactions === undefined) return undefined;
  const attempts = r.transactions + r.ignoredErrors;
  return attempts === 0 ? 0 : (100 * r.ignoredErrors) / attempts;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

export function judgeSysbenchRun(input: SysbenchJudgeInput): SysbenchJudgeResult {
  const report = parseSysbenchOutput(input.stdout);
  const fatal = [...report.fatal, ...sysbenchFatalMessages(input.stderr)];
  const fail = (reason: string): SysbenchJudgeResult =>
    report.empty ? { ok: false, reason } : { ok: false, reason, report };
  const firstFatal = fatal[0] === undefined ? '' : `: ${oneLine(fatal[0])}`;

  if (input.exitCode === null) {
    return fail(`sysbench was terminated by signal ${input.signal ?? 'unknown'}`);
  }
  if (input.exitCode !== 0) return fail(`sysbench exited with code ${input.exitCode}${firstFatal}`);
  if (fatal.length > 0) return fail(`sysbench reported ${fatal.length} FATAL errors${firstFatal}`);
  if (report.empty) return fail('sysbench exited 0 but printed no report');
  if (report.threads !== undefined && report.threads !== input.expectedThreads) {
    return fail(`sysbench ran ${report.threads} threads, expected ${input.expectedThreads}`);
  }
  if (!report.transactions) return fail('no transactions were processed');
  const pct = ignoredErrorsPct(report);
  if (pct !== undefined && pct > input.maxIgnoredErrorsPct) {
    return fail(
      `too many ignored errors: ${report.ignoredErrors} of ${report.transactions + report.ignoredErrors!} ` +
        `transaction attempts (${pct.toFixed(2)}%) exceed maxIgnoredErrorsPct ${input.maxIgnoredErrorsPct}% ` +
        '(deadlocks, duplicate keys or serialization failures that sysbench rolled back and retried)',
    );
  }
  return { ok: true, report };
}
