/**
 * Runs a benchmark from the CLI: results directory, Ctrl-C handling (first: stop after cleanup and keep
 * what was measured; second: force cleanup and exit), and the report printed at the end.
 */
import path from 'node:path';
import { runCleanups } from '../cluster/cleanup.js';
import { compareRun } from '../compare/compare-run.js';
import { renderComparisonText } from '../report/comparison-text.js';
import type { RunResult } from '../results/types.js';
import { runBenchmark, type RunRequest } from '../runner/run-loop.js';
import type { Logger } from '../util/logger.js';
import { nodeProcessRunner } from '../util/process.js';

export interface ExecuteRunOptions extends Omit<RunRequest, 'resultsFile' | 'logsDir'> {
  outDir: string;
}

export async function executeRun(options: ExecuteRunOptions, logger: Logger): Promise<RunResult> {
  const runDir = path.resolve(options.outDir, `run-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const resultsFile = path.join(runDir, 'results.json');
  const controller = new AbortController();
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals === 1) {
      logger.warn(
        `${signal}: stopping; keeping the samples measured so far and stopping the servers (again to force)`,
      );
      controller.abort();
      return;
    }
    void runCleanups().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    logger.info(`results: ${resultsFile}`);
    const result = await runBenchmark(
      { ...options, resultsFile, logsDir: path.join(runDir, 'logs') },
      { runner: nodeProcessRunner, logger, signal: controller.signal },
    );
    process.stdout.write(renderComparisonText(compareRun(result)));
    process.stdout.write(`results written to ${resultsFile}\n`);
    if (result.status === 'interrupted') process.exitCode = 130;
    return result;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
