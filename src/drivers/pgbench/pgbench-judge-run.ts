/**
 * Decides whether one pgbench run produced a usable measurement. The run loop records a failed run with
 * the reason and retries it; this function only judges.
 *
 * pgbench exit codes (§2.7): 0 success; 1 static problems (bad options, initial connection failure: no
 * report); 2 errors during the run ("Run was aborted; the above results are incomplete.", often after a
 * full-looking report, so the report alone is never trusted). A run with rc 0 can still be unusable:
 * failed transactions (15+, serialization/deadlock after the last try), fewer clients than asked for,
 * nothing processed, or no tps line.
 */
import { parsePgbenchReport } from './parse-report.js';
import type { PgbenchReport } from './parse-report.js';

export interface JudgeInput {
  exitCode: number | null;
  signal?: string | null;
  stdout: string;
  stderr: string;
  /** The -c the run was started with. */
  expectedClients: number;
}

export type JudgeResult =
  { ok: true; report: PgbenchReport } | { ok: false; reason: string; report?: PgbenchReport };

// pgbench's client abort messages: "client 2 aborted in command 4 (set) of script 0; evaluation of
// meta-command failed" (meta commands; also SQL send failures) and "client 1 script 0 aborted in command 2
// query 0: ERROR:  division by zero" (SQL errors). Not anchored: threads write to stderr concurrently and
// lines can come out spliced ("pgbench: error: pgbench: client 1 ..." then "error: client 0 ...", seen
// with 18.6).
const ABORT_RE = /\bclient (\d+) (?:script \d+ )?aborted\b.*$/;
// pgbench <= 14 logs fatal errors as "pgbench: fatal: ...", 15+ as "pgbench: error: ...".
const ERROR_RE = /^pgbench: (?:error|fatal): (.*)$/;

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** Distinct aborted clients, with the first abort message (first line only). */
function findAborts(stderr: string): { clients: Set<number>; first?: string } {
  const clients = new Set<number>();
  let first: string | undefined;
  for (const line of stderr.split(/\r?\n/)) {
    const m = ABORT_RE.exec(line.trimEnd());
    if (!m) continue;
    clients.add(Number(m[1]));
    first ??= oneLine(m[0]);
  }
  return first === undefined ? { clients } : { clients, first };
}

function firstError(stderr: string): string | undefined {
  for (const line of stderr.split(/\r?\n/)) {
    const m = ERROR_RE.exec(line.trimEnd());
    if (m) return oneLine(m[1]!);
  }
  return undefined;
}

function pct(p: number | undefined): string {
  return p === undefined || Number.isNaN(p) ? '' : ` (${p.toFixed(3)}%)`;
}

function failureDetail(r: PgbenchReport): string {
  const parts: string[] = [];
  if (r.serializationFailures !== undefined) parts.push(`serialization ${r.serializationFailures}`);
  if (r.deadlockFailures !== undefined) parts.push(`deadlock ${r.deadlockFailures}`);
  if (r.otherFailures !== undefined) parts.push(`other ${r.otherFailures}`);
  return parts.length > 0 ? `: ${parts.join(', ')}` : '';
}

export function judgePgbenchRun(input: JudgeInput): JudgeResult {
  const report = parsePgbenchReport(input.stdout);
  const aborts = findAborts(input.stderr);
  const lost = aborts.clients.size;
  const fail = (reason: string): JudgeResult =>
    report.empty ? { ok: false, reason } : { ok: false, reason, report };

  if (input.exitCode === null) {
    return fail(`pgbench was terminated by signal ${input.signal ?? 'unknown'}`);
  }
  if (input.exitCode === 1) {
    const err = firstError(input.stderr);
    return fail(`pgbench setup or connection failure (exit code 1)${err ? `: ${err}` : ''}`);
  }
  if (input.exitCode === 2) {
    if (lost > 0) {
      return fail(
        `run aborted (exit code 2): ${lost} of ${input.expectedClients} clients aborted; first: ${aborts.first}`,
      );
    }
    // 17+ --exit-on-abort ("Run was aborted due to an error in thread 0"), or an abort without client lines.
    const err = firstError(input.stderr);
    return fail(`run aborted (exit code 2)${err ? `: ${err}` : ''}`);
  }
  if (input.exitCode !== 0) {
    const err = firstError(input.stderr);
    return fail(`pgbench exited with code ${input.exitCode}${err ? `: ${err}` : ''}`);
  }

  if (report.empty) return fail('pgbench exited 0 but printed no report');
  if (report.failed !== undefined && report.failed > 0) {
    return fail(`${report.failed} failed transactions${pct(report.failedPercent)}${failureDetail(report)}`);
  }
  if (lost > 0) {
    return fail(`lost clients: ${lost} of ${input.expectedClients} clients aborted; first: ${aborts.first}`);
  }
  if (report.clients !== undefined && report.clients < input.expectedClients) {
    return fail(
      `lost clients: the report shows ${report.clients} clients, expected ${input.expectedClients}`,
    );
  }
  if (report.processed === undefined || report.processed === 0) return fail('no transactions were processed');
  // -t mode: every client runs its N transactions, failed and skipped ones included, unless it stopped.
  const accounted = report.processed + (report.failed ?? 0) + (report.skipped ?? 0);
  if (report.plannedTransactions !== undefined && accounted < report.plannedTransactions) {
    return fail(
      `incomplete run: ${accounted} of ${report.plannedTransactions} planned transactions accounted for`,
    );
  }
  if (report.tps === undefined) return fail('no tps line in the report');
  return { ok: true, report };
}
