/**
 * The run loop: set up one cluster per arm (and per distinct data set), load data once, then run the
 * rounds in the planned interleaved order, writing the results document after every run so that an
 * interrupted or failing run keeps everything it measured. Servers are always stopped.
 *
 * Its steps, each a module: prepare (prepare-run.ts), the servers (run-clusters.ts), the rounds (rounds.ts,
 * each run measured by measure-run.ts), confirm (confirmation-block.ts), and release; the document they all
 * write goes through the journal (journal.ts).
 */
import type { RunResult } from '../core/results/result-types.js';
import { errorMessage } from '../core/util/errors.js';
import type { Logger } from '../core/util/logger.js';
import { environmentFingerprint } from '../machine/fingerprint.js';
import { applyControls, type AppliedControls } from '../machine/controls.js';
import { confirmRegressions } from './confirmation-block.js';
import { openJournal, type RunJournal } from './journal.js';
import type { MeasureContext } from './measure-run.js';
import { measuredArms, prepareRun } from './prepare-run.js';
import { ProgressTracker } from './progress.js';
import { judgingOf, runRounds, scheduleRounds, warnUnderpoweredPlan } from './rounds.js';
import { RunClusters } from './run-clusters.js';
import { roundsText } from './rounds-origin.js';
import { coldStartNotice } from './cold-start.js';
import type { RunDeps, RunRequest } from './run-request.js';

// The run loop's face: callers import the request, its check and the controls check from here.
export type { ArmSpec, RunDeps, RunRequest } from './run-request.js';
export { validateRequest } from './run-request.js';
export { checkRunControls } from './prepare-run.js';

/** The steps, in order: prepare, set up the servers, the rounds, confirm, and release however it ends. */
export async function runBenchmark(req: RunRequest, deps: RunDeps): Promise<RunResult> {
  const { logger } = deps;
  const run = await prepareRun(req, deps);
  const { result } = run;
  const journal = openJournal(result, req, deps);
  const clusters = new RunClusters(run.dataSets);
  let controls: AppliedControls | undefined;
  try {
    if (req.skipTimedRounds) {
      logger.info(`no timed rounds: ${req.skipTimedRounds}`);
      // What was run, not what the workloads would have asked for: every report says "0 rounds".
      result.plan.rounds = 0;
      result.fingerprint = environmentFingerprint(result);
      result.status = 'complete';
      return result;
    }
    for (const head of req.unmeasuredHeads ?? [])
      logger.info(`arm ${head}: not measured (base's compiled code with base's settings)`);
    const measured = measuredArms(req);
    await clusters.setUp(
      {
        arms: measured,
        serverVersions: measured.map((a) => result.arms.find((r) => r.label === a.label)!.serverVersion),
        cpuPlans: run.cpuPlans,
        drivers: run.drivers,
        runAs: run.runAs,
        tmpDir: req.tmpDir,
        dataChecksums: req.dataChecksums,
      },
      deps,
    );
    result.environment.settingsHash = clusters.settingsHash();
    // The controls hold over the measured runs (and their warm-ups), not over initdb and the data load.
    if (run.controlRequest) {
      controls = await applyControls(run.controlRequest, { ...run.controlRequest, logger });
      result.environment.controls = controls.changes;
    }
    result.fingerprint = environmentFingerprint(result);
    await journal.save();

    const schedule = scheduleRounds(run.rounds, run.workloadByName);
    const progress = new ProgressTracker(schedule.runs, schedule.plannedSeconds);
    // The memory rounds of a workload its counts decided are few on purpose: no power warning for them.
    const memoryOnly = req.memoryRounds?.names ?? [];
    warnUnderpoweredPlan(
      req,
      run.timedWorkloads.filter((w) => !memoryOnly.includes(w.name)),
      journal.warn,
    );
    if (req.memoryRounds) {
      logger.info(`${req.memoryRounds.names.join(', ')}: ${req.memoryRounds.why}`);
    }
    if (req.untimedWorkloads) {
      logger.info(
        `no timed rounds for ${req.untimedWorkloads.names.join(', ')}: ${req.untimedWorkloads.why}`,
      );
    }
    const timedCells = run.cells.filter((c) => c.rounds > 0);
    const atMost = req.adaptive ? 'at most ' : '';
    logger.info(
      `plan: ${timedCells.length} cells x ${measured.length} arms x ${atMost}${run.rounds.length} rounds = ${atMost}${run.rounds.flat().length} runs, order ${req.order}, seed ${run.seed}; ${roundsText(req, req.workloads)}`,
    );
    const cold = coldStartNotice(run.workloads);
    if (cold) logger.info(cold);
    const measuring: MeasureContext = {
      workloadByName: run.workloadByName,
      drivers: run.drivers,
      clusters,
      seed: run.seed,
      rounds: run.rounds.length,
      diagnostics: req.diagnostics !== false,
      progress,
      journal,
      deps,
    };
    const judging = judgingOf(req.analysis);
    await runRounds(req, schedule, measuring, judging);
    await confirmRegressions(req, measuring, judging);
    result.status = 'complete';
  } catch (e) {
    endOnError(e, journal, deps);
  } finally {
    await release(controls, clusters, req.logsDir, journal, logger);
  }
  return result;
}

/**
 * A run stopped by a signal ends 'interrupted'; one stopped by a results write that failed ends 'failed'
 * with the reason. Neither is a crash: the servers are stopped, the final write lands in the room the sink
 * kept, and the caller gets the result (an incomplete run, exit 3), not an exception. Anything else is
 * rethrown, once the document says 'failed' and why.
 */
function endOnError(e: unknown, journal: RunJournal, deps: RunDeps): void {
  const { result } = journal;
  const interrupted = deps.signal?.aborted === true;
  const writeFailed = !interrupted && journal.isWriteFailure(e);
  result.status = interrupted ? 'interrupted' : 'failed';
  result.stopReason = interrupted ? 'interrupted (signal)' : errorMessage(e);
  if (writeFailed) {
    deps.logger.error(`stopping the run, keeping the samples so far: ${errorMessage(e)}`);
  } else if (!interrupted) throw e;
}

/**
 * Release, however the run ended: the machine controls restored, the servers removed, the document
 * finished.
 */
async function release(
  controls: AppliedControls | undefined,
  clusters: RunClusters,
  logsDir: string | undefined,
  journal: RunJournal,
  logger: Logger,
): Promise<void> {
  await controls?.restore();
  await clusters.release(logsDir, logger);
  await journal.finish();
}
