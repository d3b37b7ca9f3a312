/**
 * `mode: calibrate`: the installed PostgreSQL of `head-bin-dir` measured as both arms (A/A), on a schedule,
 * to learn this runner's noise per cell and whether the verdict engine calls unchanged code changed. The
 * run is saved to the store when one is set, the calibration goes to the job summary and
 * calibration.json. A false alarm is a warning (one in 1/α calibrations is expected), not a failure.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { resolveAnalysis } from '../../flows/compare/analysis.js';
import {
  calibrationDecision,
  calibrationOf,
  renderCalibrationText,
} from '../../flows/calibrate/calibrate.js';
import { RESULTS_FILE, logArchive, runPipeline } from '../../flows/compare/pipeline.js';
import { UserError } from '../../core/util/errors.js';
import { REPORT_FILE, pipelineDepsOf, type ActionMode } from './action-deps.js';
import { publishGate } from './gate.js';
import { openInputStore } from './store-setup.js';
import { loadInputWorkloads } from './workloads.js';

export const CALIBRATION_FILE = 'calibration.json';

export const runCalibrateMode: ActionMode = async (inputs, ctx, deps, resultsDir) => {
  const { logger, io } = deps;
  if (!inputs.headBinDir) {
    throw new UserError(
      "mode calibrate measures one installed PostgreSQL as both arms: set 'head-bin-dir' (and no 'base-bin-dir')",
    );
  }
  if (inputs.baseBinDir) {
    throw new UserError("mode calibrate measures 'head-bin-dir' as both arms: drop 'base-bin-dir'");
  }
  const binDir = path.resolve(ctx.workspace, inputs.headBinDir);
  const workloads = await loadInputWorkloads(inputs, ctx, deps.actionDir);
  const store = await openInputStore(inputs, ctx.workspace, deps);
  const pipelineDeps = pipelineDepsOf(deps);
  try {
    const outcome = await logger.group('Calibration (A/A)', () =>
      runPipeline(
        {
          arms: {
            kind: 'installed',
            arms: [
              { label: 'a', binDir, settings: {} },
              { label: 'b', binDir, settings: {} },
            ],
          },
          workloads,
          analysis: resolveAnalysis({ alpha: inputs.alpha, thresholdPct: inputs.threshold }),
          rounds: inputs.rounds,
          durationS: inputs.duration,
          order: 'random',
          runAs: inputs.runAs,
          runDir: resultsDir,
          dataChecksums: false,
          planCheck: inputs.force ? 'warn' : 'refuse',
          source: {
            repository: `${ctx.owner}/${ctx.repo}`,
            ...(ctx.runUrl ? { runUrl: ctx.runUrl } : {}),
          },
        },
        pipelineDeps,
        store?.archive,
      ),
    );
    logArchive(outcome, logger);
    const calibration = calibrationOf(outcome.result, outcome.comparison);
    const text = renderCalibrationText(calibration);
    const calibrationFile = path.join(resultsDir, CALIBRATION_FILE);
    await writeFile(calibrationFile, `${JSON.stringify(calibration, null, 2)}\n`);
    await io.writeSummary(`## pgperf calibrate\n\n\`\`\`\n${text}\`\`\`\n`);
    logger.info(text.split('\n')[0]!);
    if (calibration.falseAlarms > 0) {
      logger.warn(
        `${calibration.falseAlarms} cell(s) of the same install were called changed: at most alpha ${calibration.alpha} of calibrations should; if it recurs the runner is not steady enough (pgperf doctor)`,
      );
    }
    io.setOutput('false-alarms', String(calibration.falseAlarms));
    io.setOutput('calibration-json', calibrationFile);
    io.setOutput('results-json', path.join(resultsDir, RESULTS_FILE));
    // An A/A run gates nothing but its own completion (calibrationDecision).
    const decision = calibrationDecision(outcome.result, calibration, inputs.failOn);
    return publishGate(
      io,
      decision,
      {
        dir: resultsDir,
        resultsFile: path.join(resultsDir, RESULTS_FILE),
        reportFile: path.join(resultsDir, REPORT_FILE),
      },
      (l) => logger.info(l),
    );
  } finally {
    await store?.close();
  }
};
