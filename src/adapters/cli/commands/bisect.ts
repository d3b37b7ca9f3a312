/**
 * `pgperf bisect`: the first bad commit between a good and a bad one, each midpoint built and A/B-tested
 * against good with the verdict engine of `pgperf run`. Exit 0 when a first bad commit is named, 1 when not
 * (inconclusive, not reproduced), 2 on bad input.
 */
import path from 'node:path';
import { Command } from 'commander';
import { runBisection } from '../../../flows/bisect/bisection.js';
import {
  bisectRequestOf,
  checkBisectRounds,
  type BisectRoundsOption,
} from '../../../flows/bisect/bisect-request.js';
import type { OptionNames } from '../../../flows/compare/options/option-error.js';
import { DEFAULT_TRIES, oneCell } from '../../../flows/bisect/one-cell.js';
import { DEFAULT_REPO, parseRepo } from '../../../postgres/builds/source.js';
import { loadWorkload } from '../../../drivers/load-workload.js';
import { resolveAnalysis } from '../../../core/compare/analysis/recorded-analysis.js';
import { renderBisectText } from '../../../core/report/bisect/bisect-text.js';
import { consoleLogger } from '../../../core/util/logger.js';
import { cliPipelineDeps } from '../pipeline-deps.js';
import { signalExitCode, type StopSignal } from '../../../machine/os/signals.js';
import { addAdaptiveOptions, adaptiveFromFlags, type AdaptiveFlags } from '../adaptive-flags.js';
import { addFailOnOption, type FailOnFlags } from '../fail-on-option.js';
import { recordBisectDecision } from '../../../flows/bisect/bisect-gate.js';
import { reportGate } from '../report-gate.js';
import { addAnalysisOptions, analysisFromFlags, type AnalysisFlags } from '../analysis-flags.js';
import {
  refArg,
  positiveInt,
  workloadOptionHelp,
  addMeasureOptions,
  type MeasureFlags,
} from '../flag-parsers.js';
import { BISECT_TRIES, CLIENTS, rangeText } from '../../../core/bounds.js';
import { STORE_OPTION_HELP, openCliStore } from '../store-option.js';
import { checkOutDir, checkTmpDir } from '../validate.js';
import { cacheDirHelp, checkedCacheDir } from '../cache-dir-option.js';
import { collectString } from '../flag-parsers.js';
import { withInterrupt } from '../stop-scope.js';

interface BisectFlags extends AnalysisFlags, AdaptiveFlags, FailOnFlags, MeasureFlags {
  repo: string;
  good: string;
  bad: string;
  workload: string;
  clients?: number;
  tries: number;
  verifyBad: boolean;
  cacheDir?: string;
  buildOption: string[];
  seed?: number;
  store?: string | false;
  json: boolean;
  verbose: boolean;
}

/** The flags as the bisection's checks name them. */
const BISECT_FLAG_NAMES: OptionNames<BisectRoundsOption> = {
  rounds: '--rounds',
  maxRounds: '--max-rounds',
  timeBudget: '--time-budget',
};

export function bisectCommand(): Command {
  const command = new Command('bisect')
    .description(
      'find the first bad commit between --good and --bad: build each midpoint and A/B-test it against good',
    )
    .option('--repo <url|path>', 'git URL or local repository', DEFAULT_REPO)
    .requiredOption(
      '--good <ref>',
      'a commit without the regression (an ancestor of --bad)',
      refArg('--good'),
    )
    .requiredOption('--bad <ref>', 'a commit with the regression', refArg('--bad'))
    .requiredOption(
      '--workload <file|name>',
      workloadOptionHelp('the workload that regressed: its file', true),
    )
    .option(
      '--clients <n>',
      `the client count to measure (default: the workload's, when it has one; ${rangeText(CLIENTS)})`,
      positiveInt('--clients', CLIENTS),
    )
    .option(
      '--tries <n>',
      `measurements per commit while the verdict is inconclusive, each with twice the rounds (${rangeText(BISECT_TRIES)})`,
      positiveInt('--tries', BISECT_TRIES),
      DEFAULT_TRIES,
    )
    .option('--no-verify-bad', 'do not measure --bad first (assume it is bad)')
    .option('--cache-dir <dir>', cacheDirHelp())
    .option(
      '--build-option <option>',
      'extra build option for every build: -DNAME=VALUE (meson) or --with-X (configure) (repeatable)',
      collectString,
      [],
    )
    .option(
      '--out <dir>',
      'results directory (a bisect-<time> directory with one run per test)',
      'pgperf-results',
    )
    .option('--seed <n>', 'seed for the run order (default: random, recorded)', positiveInt('--seed'))
    .option('--store <dir|url>', STORE_OPTION_HELP)
    .option('--no-store', 'do not save the A/B tests to the results store')
    .option('--json', 'print the report as JSON', false)
    .option('-v, --verbose', 'debug output', false);
  const measured = addMeasureOptions(command, {
    rounds: "rounds of the first try (overrides the workload's)",
    out: false,
  });
  const gated = addFailOnOption(addAdaptiveOptions(addAnalysisOptions(measured, 'run')));
  return gated.action(async (flags: BisectFlags) => {
    const logger = consoleLogger({ verbose: flags.verbose });
    const workload = oneCell(await loadWorkload(flags.workload, { what: '--workload' }), flags.clients);
    checkBisectRounds({ ...flags, timeBudgetS: flags.timeBudget }, BISECT_FLAG_NAMES);
    const analysis = resolveAnalysis(analysisFromFlags(flags));
    // Checked here, so bad adaptive flags fail before anything is built.
    const adaptive = adaptiveFromFlags(flags, analysis.alpha, 0);
    await checkOutDir(flags.out);
    await checkTmpDir(flags.tmpDir);
    // The flags the flow names alike (good, bad, rounds, tries, verifyBad, seed, runAs, tmpDir) pass as they are.
    const request = bisectRequestOf({ ...flags, workload }, analysis, {
      ...flags,
      repo: parseRepo(flags.repo, process.cwd()),
      cacheDir: await checkedCacheDir(flags.cacheDir),
      extraOptions: flags.buildOption,
      durationS: flags.duration,
      adaptive: adaptive && { ...flags, maxRounds: adaptive.plan.maxRounds },
      outDir: path.resolve(flags.out, `bisect-${new Date().toISOString().replace(/[:.]/g, '-')}`),
    });
    // Every A/B test is saved, so the measurements of a long bisection outlive its directory.
    const store = flags.store === false ? undefined : await openCliStore(flags.store, logger, true);
    const stopped: { by?: StopSignal } = {};
    const report = await withInterrupt(
      logger,
      (signal) => {
        // Bisection builds one commit at a time with its own builder; the rest is the CLI's usual deps.
        const { build: _pairBuilder, ...deps } = cliPipelineDeps(logger, signal);
        return runBisection(request, { ...deps, ...(store ? { archive: store } : {}) });
      },
      stopped,
    ).finally(() => store?.close());
    process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderBisectText(report));
    const decision = await recordBisectDecision(report.outcome, flags.failOn, request.outDir);
    reportGate(decision, logger);
    // Stopped by Ctrl-C after a run kept what it measured: the signal's exit code.
    const interrupted = report.outcome.kind === 'undecided' && report.outcome.interrupted;
    process.exitCode = interrupted
      ? signalExitCode(stopped.by ?? 'SIGINT')
      : (process.exitCode ?? decision.exitCode);
  });
}
