/**
 * Runs the pipeline from the CLI: the run directory, Ctrl-C handling (first: stop after cleanup and keep
 * what was measured; second: force cleanup and exit), and the report printed at the end, verdict first.
 * However the run ends, a line says where its results are and in what state ("results (interrupted) in
 * ..."), and the exit code says whether something was measured: a run stopped by an error after measuring
 * exits 3 (its samples are kept), before measuring 2; a signal 130 or 143.
 */
import path from 'node:path';
import type { PipelineOutcome, PipelineRequest, RunArchive } from '../../flows/compare/pipeline/pipeline.js';
import { RESULTS_FILE, checkDesignReach } from '../../flows/compare/pipeline/pipeline.js';
import { runComparison } from '../../flows/compare/compare-flow.js';
import type { StoredBaselineOptions } from '../../flows/compare/baseline/stored-baseline.js';
import type { Decision } from '../../core/compare/decision/decision.js';
import type { FailOn } from '../../core/compare/decision/policy.js';
import { decideRun, writeDecision } from '../../flows/compare/pipeline/decide-run.js';
import { worthKeeping } from '../../flows/compare/pipeline/archive-sink.js';
import { renderComparisonText } from '../../core/report/terminal/comparison-text.js';
import { steadySummary } from '../../core/compare/evidence/steady-summary.js';
import { UserError, errorMessage } from '../../core/util/errors.js';
import { EXIT_CODES } from '../../core/compare/decision/decision.js';
import type { RunResult } from '../../core/results/result-types.js';
import { onCleanup } from '../../machine/os/cleanup.js';
import { readResults } from '../../store/read-results.js';
import type { Logger } from '../../core/util/logger.js';
import { InterruptedError, signalExitCode, type StopSignal } from '../../machine/os/signals.js';
import { cliPipelineDeps } from './pipeline-deps.js';
import { stopOnSignals, type StopScope } from './stop-scope.js';
import { checkOutDir, checkTmpDir } from './validate.js';

export interface ExecuteRunOptions extends Omit<PipelineRequest, 'runDir'> {
  /** The results directory; each run gets its own run-<time> directory inside. */
  outDir: string;
  /** Compare head with a stored baseline instead of measuring base in this job (`--baseline stored`). */
  storedBaseline?: StoredBaselineOptions;
}

export interface ExecuteRunDeps {
  /** The results store the run is saved to, if any. */
  archive?: RunArchive;
  /** Print the comparison table (default true; a one-arm nightly run has nothing to compare). */
  printComparison?: boolean;
  /** Gate the exit code on the decision under this fail-on (`pgperf run`); unset: exit 0 on any verdict. */
  failOn?: FailOn;
  /** The command's signal handling, installed before it read its workloads (default: installed here). */
  stop?: StopScope;
}

export interface ExecuteRunOutcome extends PipelineOutcome {
  decision: Decision;
}

export async function executeRun(
  options: ExecuteRunOptions,
  logger: Logger,
  extra: ExecuteRunDeps = {},
): Promise<ExecuteRunOutcome> {
  // Before any directory is made: a plan that cannot decide anything is refused (unless --force).
  checkDesignReach(options);
  const runDir = path.resolve(options.outDir, `run-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  await checkOutDir(options.outDir);
  await checkTmpDir(options.tmpDir);
  // First signal: stop after the current run, keep what was measured; second: clean up and exit at once.
  // A command that installed the handlers before reading its workloads hands them over.
  const stop = extra.stop ?? stopOnSignals(logger);
  const disposeSignals = extra.stop ? () => undefined : stop.dispose;
  stop.throwIfStopped();
  const resultsFile = path.join(runDir, RESULTS_FILE);
  const print =
    extra.printComparison === false
      ? (line: string) => logger.info(line.trimEnd())
      : (line: string) => process.stdout.write(line);
  // A forced exit (a second signal) ends in the cleanup registry, not here: the document is finished there
  // first (src/run/sink.ts); this says, last, where it is and in what state.
  const unregisterLastLine = onCleanup(async () =>
    print(`${resultsLine(resultsFile, await keptRecord(resultsFile))}\n`),
  );
  try {
    logger.info(`results: ${resultsFile}`);
    const { outDir: _outDir, storedBaseline, ...request } = options;
    const deps = cliPipelineDeps(logger, stop.signal);
    let outcome;
    try {
      outcome = await runComparison({ ...request, runDir }, storedBaseline, deps, extra.archive);
    } catch (e) {
      throw await endedBy(e, resultsFile, stop.stoppedBy(), print);
    }
    const decision = decideRun(outcome.result, outcome.comparison, extra.failOn);
    if (extra.printComparison !== false) {
      process.stdout.write(
        renderComparisonText(
          outcome.comparison,
          decision,
          outcome.result.baseline,
          steadySummary(outcome.result),
          outcome.result.clients,
          outcome.result.source,
          outcome.result.instructions,
        ),
      );
    }
    print(
      `results ${outcome.result.status === 'complete' ? 'written to' : `(${outcome.result.status}) in`} ${outcome.resultsFile}\n`,
    );
    if (extra.failOn !== undefined) {
      // The decision is printed above; a file that cannot be written (a full disk) must not hide the exit code.
      await writeDecision(path.dirname(outcome.resultsFile), decision).then(
        (file) => print(`decision written to ${file}\n`),
        (e: unknown) => logger.warn(`could not write decision.json: ${errorMessage(e)}`),
      );
      process.exitCode = decision.exitCode;
    }
    if (outcome.archived)
      print(`saved to the store ${outcome.archived.description} as ${outcome.archived.id}\n`);
    else if (extra.archive && !outcome.archiveError)
      print(`not saved to the store: ${notSavedReason(outcome.result)}\n`);
    if (outcome.archiveError) logger.warn(outcome.archiveError);
    if (outcome.result.status === 'interrupted') {
      process.exitCode = signalExitCode(stop.stoppedBy() ?? 'SIGINT');
    }
    return { ...outcome, decision };
  } finally {
    unregisterLastLine();
    disposeSignals();
  }
}

/**
 * Why a run given a store was not saved to it, when the store said nothing against it: the store keeps every
 * answer, timed or decided without timed rounds (archive-sink.ts worthKeeping), and this run measured none of
 * the rounds it planned; its results.json is its record.
 * "nothing was measured (the run was interrupted); ...".
 */
export function notSavedReason(result: Pick<RunResult, 'samples' | 'plan' | 'status'>): string {
  const kept = 'results.json keeps this one';
  if (worthKeeping(result)) return `the store did not take it; ${kept}`;
  const ended =
    result.status === 'complete'
      ? ''
      : ` (the run ${result.status === 'failed' ? 'failed' : 'was interrupted'})`;
  return `nothing was measured${ended}; the store keeps runs that measured or decided something, and ${kept}`;
}

/** What the results file on disk says: "results (interrupted) in FILE", or that there is none. */
function resultsLine(file: string, kept: KeptRecord | undefined): string {
  if (!kept) return 'results: none written (stopped before the run began)';
  return `results ${kept.status === 'complete' ? 'written to' : `(${kept.status}) in`} ${file}`;
}

interface KeptRecord {
  status: string;
  samples: number;
}

/**
 * The status and sample count of the results document at `file`, read as every reader reads one
 * (store/read-results.ts: a regular file within a deadline, validated); undefined when there is none, or
 * none that reads as a results document.
 */
async function keptRecord(file: string): Promise<KeptRecord | undefined> {
  try {
    const doc = await readResults(file, { warn: () => {} });
    return { status: doc.status, samples: doc.samples.length };
  } catch {
    return undefined;
  }
}

/**
 * The error a run that did not return ends with, after its results line: a signal's InterruptedError
 * (130, 143); a user error after samples were kept, the same message with exit code 3 (the run could not
 * complete; its results are kept); anything else as it was (2 for a user error before any sample, 70 for
 * a bug).
 */
async function endedBy(
  e: unknown,
  resultsFile: string,
  stoppedBy: StopSignal | undefined,
  print: (line: string) => void,
): Promise<unknown> {
  const kept = await keptRecord(resultsFile);
  if (kept) print(`${resultsLine(resultsFile, kept)}\n`);
  if (stoppedBy) {
    const measured = kept?.samples ? `${kept.samples} samples kept` : 'nothing was measured';
    return new InterruptedError(
      `${stoppedBy}: stopped (${errorMessage(e).split('\n')[0]}); ${measured}`,
      signalExitCode(stoppedBy),
    );
  }
  if (e instanceof UserError && kept && kept.samples > 0) {
    return new UserError(e.message, { exitCode: EXIT_CODES.incomplete });
  }
  return e;
}
