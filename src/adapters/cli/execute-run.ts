/**
 * Runs the pipeline from the CLI: the run directory, Ctrl-C handling (first: stop after cleanup and keep
 * what was measured; second: force cleanup and exit), and the report printed at the end, verdict first.
 */
import path from 'node:path';
import type { PipelineDeps, PipelineOutcome, PipelineRequest } from '../../flows/compare/pipeline.js';
import { checkPlanReach } from '../../flows/compare/pipeline.js';
import { runComparison } from '../../flows/compare/compare-flow.js';
import type { StoredBaselineOptions } from '../../flows/compare/stored-baseline.js';
import type { Decision } from '../../core/compare/decision.js';
import type { FailOn } from '../../core/compare/policy.js';
import { decideRun, writeDecision } from '../../flows/compare/decide-run.js';
import { renderComparisonText } from '../../core/report/comparison-text.js';
import { errorMessage } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import { installSignalHandlers, signalExitCode, type StopSignal } from '../../machine/os/signals.js';
import { cliPipelineDeps } from './pipeline-deps.js';
import { checkOutDir, checkTmpDir } from './validate.js';

export interface ExecuteRunOptions extends Omit<PipelineRequest, 'runDir'> {
  /** The results directory; each run gets its own run-<time> directory inside. */
  outDir: string;
  /** Compare head with a stored baseline instead of measuring base in this job (`--baseline stored`). */
  storedBaseline?: StoredBaselineOptions;
}

export type ExecuteRunDeps = Pick<PipelineDeps, 'archive'> & {
  /** Print the comparison table (default true; a one-arm nightly run has nothing to compare). */
  printComparison?: boolean;
  /** Gate the exit code on the decision under this fail-on (`pgperf run`); unset: exit 0 on any verdict. */
  failOn?: FailOn;
};

export interface ExecuteRunOutcome extends PipelineOutcome {
  decision: Decision;
}

export async function executeRun(
  options: ExecuteRunOptions,
  logger: Logger,
  extra: ExecuteRunDeps = {},
): Promise<ExecuteRunOutcome> {
  // Before any directory is made: a plan that cannot decide anything is refused (unless --force).
  checkPlanReach(options);
  const runDir = path.resolve(options.outDir, `run-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  await checkOutDir(options.outDir);
  await checkTmpDir(options.tmpDir);
  const controller = new AbortController();
  let stoppedBy: StopSignal | undefined;
  // First signal: stop after the current run, keep what was measured; second: clean up and exit at once.
  const disposeSignals = installSignalHandlers({
    logger,
    onFirst: (signal) => {
      stoppedBy = signal;
      controller.abort(new Error(`interrupted by ${signal}`));
    },
  });
  try {
    logger.info(`results: ${path.join(runDir, 'results.json')}`);
    const { outDir: _outDir, storedBaseline, ...request } = options;
    const deps = cliPipelineDeps(logger, controller.signal, extra.archive);
    const outcome = await runComparison({ ...request, runDir }, storedBaseline, deps);
    const print =
      extra.printComparison === false
        ? (line: string) => logger.info(line.trimEnd())
        : (line: string) => process.stdout.write(line);
    const decision = decideRun(outcome.result, outcome.comparison, extra.failOn);
    if (extra.printComparison !== false) {
      process.stdout.write(renderComparisonText(outcome.comparison, decision, outcome.result.baseline));
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
    if (outcome.archiveError) logger.warn(outcome.archiveError);
    if (outcome.result.status === 'interrupted') process.exitCode = signalExitCode(stoppedBy ?? 'SIGINT');
    return { ...outcome, decision };
  } finally {
    disposeSignals();
  }
}
