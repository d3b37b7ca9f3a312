/**
 * `pgperf demo`: the embedded default comparison (src/flows/compare/demo-comparison.ts) on the installed
 * PostgreSQL, printed and saved to the store like any run, then what to run next.
 */
import { Command } from 'commander';
import { consoleLogger } from '../../../core/util/logger.js';
import { nodeProcessRunner } from '../../../machine/os/process.js';
import { resolveAnalysis } from '../../../core/compare/analysis/recorded-analysis.js';
import {
  DEMO_ARMS,
  DEMO_WORKLOAD,
  demoArms,
  demoNext,
  demoThreshold,
  findInstalledBinDir,
} from '../../../flows/compare/demo-comparison.js';
import {
  demoArmsText,
  demoNextLines,
  demoReadingText,
  demoThresholdText,
} from '../../../core/report/terminal/demo-text.js';
import { executeRun } from '../execute-run.js';
import { STORE_OPTION_HELP, openCliStore } from '../store-option.js';
import { runAsArg, positiveInt } from '../flag-parsers.js';
import { ROUNDS, rangeText } from '../../../core/bounds.js';
import { checkOutDir } from '../validate.js';

export function demoCommand(): Command {
  return new Command('demo')
    .description('compare synchronous_commit on vs off on the installed PostgreSQL (about two minutes)')
    .option('--bin <dir>', 'PostgreSQL bin directory (default: the newest under /usr/lib/postgresql)')
    .option('--out <dir>', 'results directory', 'pgperf-results')
    .option('--rounds <n>', `rounds (${rangeText(ROUNDS)})`, positiveInt('--rounds', ROUNDS))
    .option('--store <dir|url>', STORE_OPTION_HELP)
    .option(
      '--run-as <user>',
      'unprivileged user to run PostgreSQL as when pgperf is root',
      runAsArg('--run-as'),
    )
    .action(async (flags: { bin?: string; out: string; rounds?: number; runAs?: string; store?: string }) => {
      const logger = consoleLogger();
      const binDir = flags.bin ?? (await findInstalledBinDir(nodeProcessRunner));
      logger.info(
        `demo: ${DEMO_WORKLOAD.description}, PostgreSQL from ${binDir}; ${demoThresholdText(demoThreshold(flags.rounds ?? DEMO_WORKLOAD.rounds))}`,
      );
      logger.info(`demo: ${demoArmsText(DEMO_ARMS)}`);
      await checkOutDir(flags.out);
      const store = await openCliStore(flags.store, logger, true);
      try {
        const outcome = await executeRun(
          {
            arms: {
              kind: 'installed',
              arms: demoArms(binDir),
            },
            analysis: resolveAnalysis(),
            workloads: [DEMO_WORKLOAD],
            rounds: flags.rounds,
            order: 'random',
            runAs: flags.runAs,
            dataChecksums: false,
            outDir: flags.out,
          },
          logger,
          { archive: store },
        );
        process.stdout.write(`${demoReadingText(outcome.decision.verdict, DEMO_ARMS)}\n`);
        const saved = outcome.archived ? { store: flags.store } : undefined;
        for (const line of demoNextLines(demoNext({ saved, resultsFile: outcome.resultsFile }))) {
          process.stdout.write(`${line}\n`);
        }
      } finally {
        await store.close();
      }
    });
}
