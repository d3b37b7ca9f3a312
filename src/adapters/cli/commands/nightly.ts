/**
 * `pgperf nightly`: the nightly job (src/flows/nightly/nightly-job.ts, the same the Action's `mode: nightly`
 * runs) with the CLI's side effects: the branch head (built from `--ref`, or given as `--bin`) measured and
 * saved to the results store, every stored series analysed for change points; the report on stdout (verdict
 * first), the history site with `--site`, and with `--github-repo` (and $GITHUB_TOKEN) the GitHub issues of
 * the regression events, updated in place and closed on recovery. The exit code follows --fail-on.
 */
import { Command, Option } from 'commander';
import { EXIT_CODES } from '../../../core/compare/decision/decision.js';
import { DEFAULT_FAIL_ON, FAIL_ON, type FailOn } from '../../../core/compare/decision/policy.js';
import { DEFAULT_REPO, parseRepo } from '../../../postgres/builds/source.js';
import { loadWorkloads } from '../../../drivers/load-workload.js';
import { octokitApi } from '../../../github/octokit-api.js';
import { DEFAULT_RAISE_AFTER_DAYS } from '../../../core/report/nightly/triage-digest.js';
import { inspectBinDir } from '../../../postgres/cluster/cluster.js';
import { resolveRunAs } from '../../../postgres/cluster/run-as.js';
import { BACKFILL_COMMITS, EXPECT_EVERY_HOURS, RAISE_AFTER_DAYS, rangeText } from '../../../core/bounds.js';
import { nodeProcessRunner } from '../../../machine/os/process.js';
import { writeNightlySite } from '../../../flows/nightly/publish-site.js';
import { checkNightlyIssues, concludeNight, runNightlyJob } from '../../../flows/nightly/nightly-job.js';
import { NIGHTLY_FAIL_ON_MEANING } from '../../../flows/nightly/nightly-flow.js';
import { nightlyHeadOf, type NightlyChoice } from '../../../flows/nightly/nightly-head.js';
import { checkBackfill } from '../../../flows/nightly/backfill.js';
import { UserError } from '../../../core/util/errors.js';
import { consoleLogger } from '../../../core/util/logger.js';
import { cliPipelineDeps } from '../pipeline-deps.js';
import { addChangePointOptions, changePointSettings, type ChangePointFlags } from '../change-point-flags.js';
import { executeRun } from '../execute-run.js';
import {
  oneOf,
  positiveInt,
  workloadOptionHelp,
  addMeasureOptions,
  type MeasureFlags,
  refArg,
} from '../flag-parsers.js';
import { STORE_OPTION_HELP, openCliStore } from '../store-option.js';
import { cacheDirHelp, checkedCacheDir, resolveCacheDir } from '../cache-dir-option.js';
import { collectString } from '../flag-parsers.js';
import { withInterrupt } from '../stop-scope.js';
import { checkOutDir, checkTmpDir } from '../validate.js';
import { reportGate } from '../report-gate.js';

interface NightlyFlags extends ChangePointFlags, MeasureFlags {
  bin?: string;
  commit?: string;
  repo?: string;
  ref?: string;
  cacheDir?: string;
  buildOption: string[];
  workload: string[];
  store?: string;
  site?: string;
  repoUrl?: string;
  githubRepo?: string;
  canaryBin?: string;
  expectEvery?: number;
  triageDigest: boolean;
  raiseAfter?: number;
  backfill?: number;
  failOn: FailOn;
}

/** The exit codes of `pgperf nightly`, in its help. */
const NIGHTLY_EXIT_CODES_HELP = `
Exit codes:
  ${EXIT_CODES.passed}  passed: no open regression event in the history (or --fail-on never)
  ${EXIT_CODES.failed}  --fail-on regression: a workload has an open regression event (a cell whose latest change
     point is a regression); --fail-on inconclusive: also a series measured tonight that is too short to analyse
  ${EXIT_CODES.usage}  usage or input error (nothing was measured)
  ${EXIT_CODES.incomplete}  the run could not complete, or was not saved to the store (unless --fail-on never)
  130, 143  stopped by Ctrl-C (SIGINT) or SIGTERM; what was measured is kept`;

export function nightlyCommand(): Command {
  const command = new Command('nightly')
    .description('measure the branch head, store it, find change points in the history and report them')
    .option('--bin <dir>', 'an installed PostgreSQL bin directory to measure (instead of building --ref)')
    .option('--commit <sha>', 'the commit --bin was built from (recorded; the history plots by it)')
    .option('--repo <url|path>', `git URL or local repository to build --ref from (default ${DEFAULT_REPO})`)
    .option('--ref <ref>', 'branch, tag or sha to build and measure, e.g. master', refArg('--ref'))
    .option('--cache-dir <dir>', cacheDirHelp())
    .option('--build-option <option>', 'extra build option (repeatable)', collectString, [])
    .requiredOption('--workload <file|name...>', workloadOptionHelp())
    .option('--store <dir|url>', STORE_OPTION_HELP)
    .option('--site <dir>', 'also render the history site into this directory')
    .option('--repo-url <url>', 'link commits to <url>/commit/<sha>')
    .option(
      '--canary-bin <dir>',
      'a frozen PostgreSQL install (a pinned release) measured after the head as the runner canary, its own series; a regression on a night the canary moved too is suspect (runner drift)',
    )
    .option(
      '--expect-every <hours>',
      'hours expected between nightly runs (e.g. 24): a longer gap is a missing-night alert',
      positiveInt('--expect-every', EXPECT_EVERY_HOURS),
    )
    .option(
      '--triage-digest',
      'with --github-repo: keep one triage digest issue listing the open regression issues not yet labelled pgperf-triaged',
      false,
    )
    .option(
      '--raise-after <days>',
      `with --triage-digest: raise a regression left untriaged this many days again on its issue (default ${DEFAULT_RAISE_AFTER_DAYS})`,
      positiveInt('--raise-after', RAISE_AFTER_DAYS),
    )
    .option(
      '--backfill <n>',
      `with --ref: first build and measure the n commits before the head (${rangeText(BACKFILL_COMMITS)}), oldest first, skipping those with their parent's compiled code, each stored as a night of its own`,
      positiveInt('--backfill', BACKFILL_COMMITS),
    )
    .option(
      '--github-repo <owner/name>',
      'keep one issue per regression event there (cells whose commit ranges overlap): opened, updated, closed on recovery (token: $GITHUB_TOKEN)',
    )
    .addOption(
      new Option(
        '--fail-on <when>',
        `when the exit code says the nightly failed: ${FAIL_ON.map((v) => `${v} (${NIGHTLY_FAIL_ON_MEANING[v]})`).join('; ')}`,
      )
        .argParser(oneOf('--fail-on', FAIL_ON))
        .default(DEFAULT_FAIL_ON),
    )
    .addHelpText('after', NIGHTLY_EXIT_CODES_HELP);
  return addChangePointOptions(addMeasureOptions(command), 'runs').action(async (flags: NightlyFlags) => {
    const logger = consoleLogger();
    const github = flags.githubRepo ? githubTarget(flags.githubRepo, process.env) : undefined;
    if (flags.triageDigest && !github) {
      throw new UserError(
        '--triage-digest keeps an issue: give --github-repo OWNER/NAME (token in $GITHUB_TOKEN)',
      );
    }
    checkNightlyIssues(
      { triageDigest: flags.triageDigest, raiseAfterDays: flags.raiseAfter },
      { triageDigest: '--triage-digest', raiseAfter: '--raise-after' },
    );
    const changePoints = changePointSettings(flags);
    const { head, commit } = nightlyHead(flags);
    checkBackfill(
      flags.backfill,
      { installed: head.kind === 'installed' },
      { backfill: '--backfill', bin: '--bin' },
    );
    const workloads = [];
    for (const ref of flags.workload) workloads.push(...(await loadWorkloads(ref, { what: '--workload' })));
    const repoUrl = flags.repoUrl?.replace(/\/+$/, '');
    // Every directory it writes, created and proven writable before anything is built or measured.
    if (head.kind === 'build') await checkedCacheDir(flags.cacheDir);
    await checkOutDir(flags.out);
    await checkTmpDir(flags.tmpDir);
    // The canary must be a usable install before tonight's head spends its build and rounds.
    if (flags.canaryBin) {
      const runAs = await resolveRunAs(flags.runAs, { runner: nodeProcessRunner, logger });
      await inspectBinDir(flags.canaryBin, '--canary-bin', { runner: nodeProcessRunner, runAs });
    }
    if (flags.site)
      await checkOutDir(flags.site, '--site', 'a directory for the history site (created if missing)');
    const store = await openCliStore(flags.store, logger, true);
    try {
      const outcome = await runNightlyJob(
        {
          head,
          commit,
          workloads,
          rounds: flags.rounds,
          durationS: flags.duration,
          runAs: flags.runAs,
          tmpDir: flags.tmpDir,
          repoUrl,
          changePoints,
          canaryBinDir: flags.canaryBin,
          expectEveryHours: flags.expectEvery,
          backfill: flags.backfill,
          issues: github && {
            api: octokitApi(github),
            triageDigest: flags.triageDigest,
            raiseAfterDays: flags.raiseAfter,
          },
        },
        {
          logger,
          measure: (request) =>
            executeRun({ ...request, outDir: flags.out }, logger, { archive: store, printComparison: false }),
          build: (request) =>
            withInterrupt(logger, (signal) => cliPipelineDeps(logger, signal).build!(request, signal)),
          history: store,
          backfill: { runner: nodeProcessRunner },
        },
      );
      if (flags.site && outcome.analysis)
        await writeNightlySite(flags.site, outcome.analysis, repoUrl, logger);
      const { report, decision } = await concludeNight(outcome, { repoUrl, failOn: flags.failOn });
      process.stdout.write(report);
      reportGate(decision, logger);
      // An interrupted run already set its signal's exit code (executeRun).
      if (process.exitCode === undefined || process.exitCode === 0) process.exitCode = decision.exitCode;
    } finally {
      await store.close();
    }
  });
}

/** --bin, or --ref built from --repo: checked before anything is opened or measured. */
function nightlyHead(flags: NightlyFlags): NightlyChoice {
  if (flags.bin && flags.ref)
    throw new UserError('--bin and --ref both given: measure an install or build a ref');
  if (flags.commit && !flags.bin) {
    throw new UserError(
      `--commit ${flags.commit} names the commit of --bin: give --bin DIR, or drop --commit`,
    );
  }
  return nightlyHeadOf(
    {
      ...(flags.bin ? { binDir: flags.bin } : {}),
      ...(flags.ref ? { ref: flags.ref } : {}),
      ...(flags.commit ? { sha: flags.commit } : {}),
      source: () => ({
        repo: parseRepo(flags.repo ?? DEFAULT_REPO, process.cwd()),
        extraOptions: flags.buildOption,
        cacheDir: resolveCacheDir(flags.cacheDir),
      }),
    },
    { bin: '--bin', ref: '--ref', commit: '--commit', repo: '--repo' },
  );
}

/** --github-repo and the token, checked before anything is measured. */
function githubTarget(spec: string, env: NodeJS.ProcessEnv) {
  const m = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(spec);
  if (!m) throw new UserError(`--github-repo must be OWNER/NAME (e.g. postgres/postgres), got '${spec}'`);
  const token = env.GITHUB_TOKEN;
  if (!token) throw new UserError('--github-repo needs a token in $GITHUB_TOKEN (issues: write)');
  return { token, baseUrl: env.GITHUB_API_URL ?? 'https://api.github.com', owner: m[1]!, repo: m[2]! };
}
