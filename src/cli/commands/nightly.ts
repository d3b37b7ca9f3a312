import { Command } from 'commander';
import { buildPostgres } from '../../pg-build/build.js';
import { DEFAULT_REPO, parseRepo } from '../../pg-build/source.js';
import { loadWorkloadFile } from '../../drivers/load-workload.js';
import { octokitApi } from '../../github/octokit-api.js';
import { describeSync, syncRegressionIssues } from '../../github/regression-issues.js';
import { renderHistoryMarkdown } from '../../history/markdown.js';
import { analyseStore, writeHistorySite } from '../../history/nightly.js';
import { nightlyRunRequest } from '../../pipeline/nightly.js';
import type { ArmSpec } from '../../runner/run-loop.js';
import { UserError } from '../../util/errors.js';
import { consoleLogger } from '../../util/logger.js';
import { nodeProcessRunner } from '../../util/process.js';
import { addChangePointOptions, changePointSettings, type ChangePointFlags } from '../change-point-flags.js';
import { executeRun } from '../execute-run.js';
import { positiveInt } from '../options.js';
import { STORE_OPTION_HELP, openCliStore } from '../store-option.js';
import { cacheDirHelp, collectString, resolveCacheDir } from './build.js';

interface NightlyFlags extends ChangePointFlags {
  bin?: string;
  commit?: string;
  repo?: string;
  ref?: string;
  cacheDir?: string;
  buildOption: string[];
  workload: string[];
  rounds?: number;
  duration?: number;
  out: string;
  store?: string;
  site?: string;
  repoUrl?: string;
  githubRepo?: string;
  runAs?: string;
  tmpDir?: string;
}

/**
 * `pgperf nightly`: measure the branch head (one arm, built from `--ref` or given as `--bin`), save the
 * run to the results store, then analyse every stored series for change points: the job-summary markdown
 * on stdout, the history site with `--site`, and with `--github-repo` (and $GITHUB_TOKEN) one GitHub issue
 * per regressed series, updated in place and closed on recovery.
 */
export function nightlyCommand(): Command {
  const command = new Command('nightly')
    .description('measure the branch head, store it, find change points in the history and report them')
    .option('--bin <dir>', 'an installed PostgreSQL bin directory to measure (instead of building --ref)')
    .option('--commit <sha>', 'the commit --bin was built from (recorded; the history plots by it)')
    .option('--repo <url|path>', `git URL or local repository to build --ref from (default ${DEFAULT_REPO})`)
    .option('--ref <ref>', 'branch, tag or sha to build and measure, e.g. master')
    .option('--cache-dir <dir>', cacheDirHelp())
    .option('--build-option <option>', 'extra build option (repeatable)', collectString, [])
    .requiredOption('--workload <file...>', 'workload files (workloads/*.yml)')
    .option('--rounds <n>', "rounds (overrides the workloads')", positiveInt('--rounds'))
    .option('--duration <seconds>', "seconds per run (overrides the workloads')", positiveInt('--duration'))
    .option('--out <dir>', 'results directory', 'pgperf-results')
    .option('--store <dir|url>', STORE_OPTION_HELP)
    .option('--site <dir>', 'also render the history site into this directory')
    .option('--repo-url <url>', 'link commits to <url>/commit/<sha>')
    .option('--github-repo <owner/name>', 'open/update/close regression issues there (token: $GITHUB_TOKEN)')
    .option('--run-as <user>', 'unprivileged user to run PostgreSQL as when pgperf is root')
    .option('--tmp-dir <dir>', 'where the cluster lives while running (default: the OS temp dir)');
  return addChangePointOptions(command, 'runs').action(async (flags: NightlyFlags) => {
    const logger = consoleLogger();
    const github = flags.githubRepo ? githubTarget(flags.githubRepo, process.env) : undefined;
    const changePoints = changePointSettings(flags);
    const workloads = [];
    for (const file of flags.workload) workloads.push(await loadWorkloadFile(file));
    const store = await openCliStore(flags.store, logger, true);
    try {
      const arm = await headArm(flags, logger);
      const request = nightlyRunRequest(arm, {
        workloads,
        rounds: flags.rounds,
        durationS: flags.duration,
        runAs: flags.runAs,
        tmpDir: flags.tmpDir,
        source: {
          head: {
            ...(arm.build ? { ref: arm.build.ref, sha: arm.build.sha } : {}),
            ...(flags.commit ? { sha: flags.commit } : {}),
            chosenBy: flags.ref ? `nightly build of ${flags.ref}` : 'nightly (--bin)',
          },
        },
      });
      const outcome = await executeRun({ ...request, outDir: flags.out }, logger, {
        archive: store,
        printComparison: false,
      });
      if (outcome.result.status !== 'complete') return;
      const analysis = await analyseStore(store, {
        maxP: changePoints.maxP,
        minSegment: changePoints.minSegment,
        minMagnitude: changePoints.magnitudePct / 100,
      });
      const repoUrl = flags.repoUrl?.replace(/\/+$/, '');
      process.stdout.write(renderHistoryMarkdown(analysis, { repoUrl }));
      if (flags.site) {
        const files = await writeHistorySite(flags.site, analysis, { title: 'pgperf nightly', repoUrl });
        logger.info(`history site: ${files.length} pages in ${flags.site}`);
      }
      if (github) {
        const done = await syncRegressionIssues(octokitApi(github), analysis, { repoUrl });
        logger.info(`regression issues in ${github.owner}/${github.repo}: ${describeSync(done)}`);
      }
    } finally {
      await store.close();
    }
  });
}

async function headArm(flags: NightlyFlags, logger: ReturnType<typeof consoleLogger>): Promise<ArmSpec> {
  if (flags.bin && flags.ref)
    throw new UserError('--bin and --ref both given: measure an install or build a ref');
  if (flags.bin) return { label: 'head', binDir: flags.bin, settings: {} };
  if (!flags.ref)
    throw new UserError('nothing to measure: give --ref BRANCH (built from --repo) or --bin DIR');
  const built = await buildPostgres(
    {
      label: 'head',
      repo: parseRepo(flags.repo ?? DEFAULT_REPO, process.cwd()),
      ref: flags.ref,
      patches: [],
      extraOptions: flags.buildOption,
      cacheDir: resolveCacheDir(flags.cacheDir),
    },
    { runner: nodeProcessRunner, logger },
  );
  return { label: 'head', binDir: built.binDir, settings: {}, build: built.record };
}

/** --github-repo and the token, checked before anything is measured. */
function githubTarget(spec: string, env: NodeJS.ProcessEnv) {
  const m = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(spec);
  if (!m) throw new UserError(`--github-repo must be OWNER/NAME (e.g. postgres/postgres), got '${spec}'`);
  const token = env.GITHUB_TOKEN;
  if (!token) throw new UserError('--github-repo needs a token in $GITHUB_TOKEN (issues: write)');
  return { token, baseUrl: env.GITHUB_API_URL ?? 'https://api.github.com', owner: m[1]!, repo: m[2]! };
}
