/**
 * `mode: calibrate`: the installed PostgreSQL of `head-bin-dir` measured as both arms (A/A), on a schedule,
 * to learn this runner's noise per cell and whether the verdict engine calls unchanged code changed: the
 * calibration job of src/flows/calibrate/calibrate-job.ts (the one `pgperf calibrate` runs). The run is
 * saved to the store when one is set, the calibration goes to the job summary and calibration.json. A false
 * alarm is a warning (one in 1/α calibrations is expected), not a failure.
 */
import path from 'node:path';
import { runCalibration } from '../../../flows/calibrate/calibrate-job.js';
import { falseAlarmWarning } from '../../../flows/calibrate/calibrate.js';
import { renderCalibrationMarkdown } from '../../../core/report/markdown/calibration-markdown.js';
import { renderCalibrationText } from '../../../core/report/terminal/calibration-text.js';
import { RESULTS_FILE, logArchive, runPipeline } from '../../../flows/compare/pipeline/pipeline.js';
import { REPORT_FILE, pipelineDepsOf, type ActionMode } from '../action-deps.js';
import { publishGate } from '../gate.js';
import { openInputStore } from '../store-setup.js';
import { loadInputWorkloads } from '../workloads.js';

export const runCalibrateMode: ActionMode = async (inputs, ctx, deps, resultsDir) => {
  const { logger, io } = deps;
  // parseInputs refused a calibration without head-bin-dir (inputs.ts).
  const binDir = path.resolve(ctx.workspace, inputs.headBinDir!);
  const workloads = await loadInputWorkloads(inputs, ctx, deps.actionDir);
  const store = await openInputStore(inputs, ctx.workspace, deps);
  const resultsFile = path.join(resultsDir, RESULTS_FILE);
  try {
    const { calibration, calibrationFile, decision, record, drills } = await runCalibration(
      {
        binDir,
        workloads,
        analysis: { alpha: inputs.alpha, thresholdPct: inputs.threshold },
        rounds: inputs.rounds,
        durationS: inputs.duration,
        runAs: inputs.runAs,
        planCheck: inputs.force ? 'warn' : 'refuse',
        source: { repository: `${ctx.owner}/${ctx.repo}`, ...(ctx.runUrl ? { runUrl: ctx.runUrl } : {}) },
        failOn: inputs.failOn,
        calibrationDir: resultsDir,
      },
      {
        // The A/A run in the results directory and to the store; a drill's probe and run beside it, never stored.
        measure: async (request, { name, store: keep }) => {
          const aa = name === 'calibration';
          const run = await logger.group(aa ? 'Calibration (A/A)' : `Calibration (${name})`, () =>
            runPipeline(
              { ...request, runDir: aa ? resultsDir : path.join(resultsDir, name) },
              pipelineDepsOf(deps),
              keep ? store?.archive : undefined,
            ),
          );
          logArchive(run, logger);
          return run;
        },
        ...(store ? { keep: async (result) => void (await store.archive.save(result)) } : {}),
      },
    );
    await io.writeSummary(renderCalibrationMarkdown(calibration, record, drills?.skipped));
    logger.info(renderCalibrationText(calibration, record, drills?.skipped).split('\n')[0]!);
    const warning = falseAlarmWarning(calibration);
    if (warning) logger.warn(warning);
    io.setOutput('false-alarms', String(calibration.falseAlarms));
    io.setOutput('calibration-json', calibrationFile!);
    io.setOutput('results-json', resultsFile);
    const files = { dir: resultsDir, resultsFile, reportFile: path.join(resultsDir, REPORT_FILE) };
    return publishGate(io, decision, files, (l) => logger.info(l));
  } finally {
    await store?.close();
  }
};
