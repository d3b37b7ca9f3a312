/**
 * `pgperf calibrate`: the same install as both arms (A/A) through the one pipeline (the calibration job of
 * src/flows/calibrate/calibrate-job.ts, the Action's `mode: calibrate` too); prints this runner's noise per
 * cell and whether any cell was (falsely) called changed, and exits on its completion.
 */
import { Command } from 'commander';
import { loadWorkloads } from '../../../drivers/load-workload.js';
import { runCalibration } from '../../../flows/calibrate/calibrate-job.js';
import { renderCalibrationText } from '../../../core/report/terminal/calibration-text.js';
import { DEFAULT_FAIL_ON } from '../../../core/compare/decision/policy.js';
import { writeDecision } from '../../../flows/compare/pipeline/decide-run.js';
import { errorMessage } from '../../../core/util/errors.js';
import { reportGate } from '../report-gate.js';
import path from 'node:path';
import { consoleLogger } from '../../../core/util/logger.js';
import { addAnalysisOptions, analysisFromFlags, type AnalysisFlags } from '../analysis-flags.js';
import { executeRun } from '../execute-run.js';
import { positiveInt, workloadOptionHelp, addMeasureOptions, type MeasureFlags } from '../flag-parsers.js';
import { STORE_OPTION_HELP, openCliStore } from '../store-option.js';
import { checkOutDir, checkTmpDir } from '../validate.js';

interface CalibrateFlags extends AnalysisFlags, MeasureFlags {
  bin: string;
  workload: string[];
  seed?: number;
  store?: string | false;
  json: boolean;
  verbose: boolean;
  drills: boolean;
}

export function calibrateCommand(): Command {
  const command = new Command('calibrate')
    .description(
      "measure this runner's noise: run the same install as both arms (A/A) and report the noise per cell and any false alarm",
    )
    .requiredOption('--bin <dir>', 'PostgreSQL bin directory measured as both arms')
    .requiredOption('--workload <file|name...>', workloadOptionHelp())
    .option('--seed <n>', 'seed for the run order (default: random, recorded)', positiveInt('--seed'))
    .option('--store <dir|url>', STORE_OPTION_HELP)
    .option('--no-store', 'do not save the run to the results store')
    .option('--no-drills', 'skip the injected drills (a known cost in head: is it caught?)')
    .option('--json', 'print the calibration as JSON', false)
    .option('-v, --verbose', 'debug output', false);
  return addAnalysisOptions(addMeasureOptions(command), 'run').action(async (flags: CalibrateFlags) => {
    const logger = consoleLogger({ verbose: flags.verbose });
    const workloads = [];
    for (const ref of flags.workload) workloads.push(...(await loadWorkloads(ref, { what: '--workload' })));
    await checkOutDir(flags.out);
    await checkTmpDir(flags.tmpDir);
    const store = flags.store === false ? undefined : await openCliStore(flags.store, logger, true);
    try {
      // An A/A run gates its own completion: an interrupted or failed calibration exits 3, as in the Action.
      const { run, calibration, decision, record, drills } = await runCalibration(
        {
          binDir: flags.bin,
          analysis: analysisFromFlags(flags),
          workloads,
          rounds: flags.rounds,
          durationS: flags.duration,
          seed: flags.seed,
          runAs: flags.runAs,
          tmpDir: flags.tmpDir,
          failOn: DEFAULT_FAIL_ON,
          drills: flags.drills,
        },
        {
          // Each run in its own run directory under --out; only the A/A run goes to the store.
          measure: (request, { store: keep }) =>
            executeRun({ ...request, outDir: flags.out }, logger, {
              ...(store && keep ? { archive: store } : {}),
              printComparison: false,
            }),
          ...(store ? { keep: async (result) => void (await store.save(result)) } : {}),
        },
      );
      process.stdout.write(
        flags.json
          ? `${JSON.stringify({ ...calibration, ...(record ? { record } : {}) }, null, 2)}\n`
          : renderCalibrationText(calibration, record, drills?.skipped),
      );
      await writeDecision(path.dirname(run.resultsFile), decision).catch((e: unknown) =>
        logger.warn(`could not write decision.json: ${errorMessage(e)}`),
      );
      reportGate(decision, logger);
      if (process.exitCode === undefined || process.exitCode === 0) process.exitCode = decision.exitCode;
    } finally {
      await store?.close();
    }
  });
}
