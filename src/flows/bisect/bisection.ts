/**
 * A bisection on real builds: the commits from good to bad (commit-range.ts), each one the search asks
 * for built with the build stage (cached by commit, ccache) and A/B-tested against good through the one
 * pipeline `pgperf run` uses, so its verdict is the verdict engine's. Regression -> bad; no-change or
 * improvement -> good; inconclusive -> measured again with twice the rounds, up to `tries` times, and
 * still inconclusive stops the search with the range narrowed so far. The entry point for the CLI and
 * (later) the Action's `mode: bisect`: it returns a plain report; rendering is the adapters'.
 */
import type {
  BisectCost,
  BisectOutcome,
  BisectReport,
  BisectTry,
  Call,
  CommitJudgement,
  RangeCommit,
  TestedCommitReport,
} from '../../core/history/bisect-report.js';
import { decidedBySameCode } from '../../core/compare/analysis/same-code.js';
import path from 'node:path';
import type { BuildDeps, BuiltInstall } from '../../postgres/builds/build-record.js';
import { buildPostgres } from '../../postgres/builds/build.js';
import { short } from '../../core/util/commit-id.js';
import { type RepoSpec } from '../../postgres/builds/source.js';
import { detectToolchain } from '../../postgres/builds/toolchain.js';
import { designSequential, type SequentialDesignInput } from '../../core/compare/analysis/adaptive.js';
import { formatDeltaCi } from '../../core/compare/format.js';
import type { Verdict } from '../../core/compare/comparison-types.js';
import type { Workload } from '../../drivers/workload.js';
import { roundsOf } from '../../drivers/common/workload-fields.js';
import { logArchive, runPipeline, type PipelineDeps, type RunArchive } from '../compare/pipeline/pipeline.js';
import type { AnalysisSettings } from '../../core/results/result-types.js';
import type { Logger } from '../../core/util/logger.js';
import type { ProcessRunner } from '../../machine/os/process.js';
import { commitRange, type RangeNames } from './commit-range.js';
import { bisect, startSearch, stepsLeft, type Judged, type SearchResult } from './search.js';

export interface BisectRequest {
  repo: RepoSpec;
  good: string;
  bad: string;
  /** What errors call good and bad (default --good, --bad). */
  names?: RangeNames;
  cacheDir: string;
  /** `--build-option`s for every build. */
  extraOptions: readonly string[];
  /** One workload with one client count: the cell that regressed. */
  workload: Workload;
  /** Rounds of the first try (default: the workload's); each further try doubles them. */
  rounds?: number;
  durationS?: number;
  /** Adaptive looks per test; each further try doubles maxRounds. */
  adaptive?: SequentialDesignInput & { maxRounds: number };
  analysis: AnalysisSettings;
  /** Measurements per commit while the verdict is inconclusive (at least 1). */
  tries: number;
  /** Measure the bad commit first, so a regression that does not reproduce here is said so (default true). */
  verifyBad?: boolean;
  seed?: number;
  runAs?: string;
  tmpDir?: string;
  /** The bisection's directory: one run directory per test inside. */
  outDir: string;
}

export interface BisectDeps {
  runner: ProcessRunner;
  logger: Logger;
  signal?: AbortSignal;
  /** PATH for taskset/numactl (workloads with cpus). */
  searchPath?: string;
  env?: NodeJS.ProcessEnv;
  /** The results store every A/B test is saved to, if any (a store failure is a warning, never fatal). */
  archive?: RunArchive;
  /** Builds one commit (default buildPostgres). */
  build?: (req: Parameters<typeof buildPostgres>[0], deps: BuildDeps) => Promise<BuiltInstall>;
  /**
   * Runs one A/B test (default runPipeline, real servers and the workload's driver). Tests of the search's
   * own logic (tries, stopping, the gate) give seeded samples here so their outcome never depends on noise.
   */
  pipeline?: typeof runPipeline;
}

export async function runBisection(req: BisectRequest, deps: BisectDeps): Promise<BisectReport> {
  const started = Date.now();
  const { logger } = deps;
  const env = deps.env ?? process.env;
  const clients = req.workload.clients;
  if (clients.length !== 1) {
    throw new RangeError(
      `a bisection measures one cell; workload ${req.workload.name} has clients ${clients.join(', ')}`,
    );
  }
  if (!(req.tries >= 1)) throw new RangeError(`tries must be at least 1, got ${req.tries}`);
  const gitDeps = { runner: deps.runner, logger, env, ...(deps.signal ? { signal: deps.signal } : {}) };
  const range = await commitRange(req, gitDeps);
  const commits = range.commits;
  const good = commits[0]!;
  const bad = commits.at(-1)!;
  const verifyBad = req.verifyBad !== false;
  logger.info(
    `bisect: ${commits.length - 1} commit(s) after good ${short(good.sha)} up to bad ${short(bad.sha)} ` +
      `(${range.walk}); about ${stepsLeft(startSearch(commits.length, { verifyBad }))} step(s)`,
  );

  const cost: BisectCost = { builds: 0, cacheHits: 0, buildS: 0, measureS: 0, tests: 0, totalS: 0 };
  const buildDeps: BuildDeps = {
    runner: deps.runner,
    logger,
    env,
    ...(deps.signal ? { signal: deps.signal } : {}),
    toolchain: await detectToolchain(env, deps.runner),
  };
  logger.info(`bisect: building good ${short(good.sha)} "${good.subject}"`);
  const goodBuild = (await buildCommit({ req, deps, buildDeps, cost }, good, 'good')).built;
  const bench: BisectBench = {
    req,
    deps,
    buildDeps,
    cost,
    commits,
    good: { commit: good, build: goodBuild },
    pipelineDeps: {
      runner: deps.runner,
      logger,
      ...(deps.signal ? { signal: deps.signal } : {}),
      searchPath: deps.searchPath ?? env.PATH ?? '',
    },
  };

  const search = await bisect(commits, (commit, at) => judgeCommit(bench, commit, at), { verifyBad });
  const tested = search.tested.map((t): TestedCommitReport => ({
    sha: t.commit.sha,
    subject: t.commit.subject,
    index: t.index,
    step: t.step,
    call: t.call,
    judgement: t.detail,
  }));
  cost.totalS = (Date.now() - started) / 1000;
  for (const k of ['buildS', 'measureS', 'totalS'] as const) cost[k] = Math.round(cost[k] * 10) / 10;
  return {
    repo: req.repo.input,
    good,
    bad,
    walk: range.walk,
    candidates: commits.length - 1,
    cell: { workload: req.workload.name, clients: clients[0]! },
    analysis: req.analysis,
    outcome: bisectOutcome(search, commits),
    tested,
    cost,
    outDir: req.outDir,
  };
}

/** What building and testing a commit need: the same for every commit of one bisection. */
interface BisectBench {
  req: BisectRequest;
  deps: BisectDeps;
  buildDeps: BuildDeps;
  /** Adds up the builds and tests as they happen. */
  cost: BisectCost;
  /** From good to bad. */
  commits: RangeCommit[];
  /** Every commit is measured against this install. */
  good: { commit: RangeCommit; build: BuiltInstall };
  pipelineDeps: PipelineDeps;
}

/** Builds one commit (cached by commit, ccache) and counts the build in the cost. */
async function buildCommit(
  bench: Pick<BisectBench, 'req' | 'deps' | 'buildDeps' | 'cost'>,
  commit: RangeCommit,
  label: string,
): Promise<{ built: BuiltInstall; seconds: number }> {
  const { req, cost } = bench;
  const t0 = Date.now();
  const built = await (bench.deps.build ?? buildPostgres)(
    {
      label,
      repo: req.repo,
      ref: commit.sha,
      sha: commit.sha,
      patches: [],
      extraOptions: req.extraOptions,
      cacheDir: req.cacheDir,
    },
    bench.buildDeps,
  );
  const seconds = (Date.now() - t0) / 1000;
  cost.builds += 1;
  cost.buildS += seconds;
  if (built.record.cacheHit) cost.cacheHits += 1;
  return { built, seconds };
}

/**
 * The search's judge: builds the commit and measures it against good, again with twice the rounds while
 * the verdict is inconclusive, up to `tries` times; an interrupted measurement leaves it undecided.
 */
async function judgeCommit(
  bench: BisectBench,
  commit: RangeCommit,
  at: { index: number; step: number; stepsEstimate: number },
): Promise<Judged<CommitJudgement>> {
  const { req } = bench;
  const { logger } = bench.deps;
  const where = `step ${at.step} of ~${at.stepsEstimate}`;
  logger.info(
    `bisect ${where}: building ${short(commit.sha)} "${commit.subject}" (commit ${at.index} of ${bench.commits.length - 1})`,
  );
  const { built, seconds } = await buildCommit(bench, commit, short(commit.sha));
  const tries: BisectTry[] = [];
  let interrupted = false;
  for (let t = 1; t <= req.tries; t++) {
    const scale = 2 ** (t - 1);
    const rounds = req.adaptive
      ? req.adaptive.maxRounds * scale
      : (req.rounds ?? roundsOf(req.workload)) * scale;
    logger.info(
      `bisect ${where}: measuring ${short(commit.sha)} against good (try ${t} of ${req.tries}, ` +
        `${req.adaptive ? 'at most ' : ''}${rounds} rounds)`,
    );
    const measured = await measureAgainstGood(bench, commit, built, t, rounds, at.step);
    tries.push(measured.try);
    if (measured.interrupted) {
      interrupted = true;
      break;
    }
    if (measured.try.verdict !== 'inconclusive') break;
  }
  const last = tries.at(-1)!;
  const judgement: CommitJudgement = {
    verdict: last.verdict,
    deltaPct: last.deltaPct,
    ci95: last.ci95,
    tries,
    build: { cacheHit: built.record.cacheHit, seconds, installDir: built.installDir },
    ...(interrupted ? { interrupted } : {}),
  };
  const call = interrupted ? 'undecided' : callOf(last.verdict);
  logger.info(
    `bisect ${where}: ${short(commit.sha)} is ${call} (${last.verdict}, ${formatDeltaCi(last) ?? (last.sameCompiledCode ? "good's compiled code, not measured" : 'no estimate')})`,
  );
  return { call, detail: judgement };
}

/** One A/B test of a built commit against good (try `t`, of `rounds` rounds), in its own run dir. */
async function measureAgainstGood(
  bench: BisectBench,
  commit: RangeCommit,
  built: BuiltInstall,
  t: number,
  rounds: number,
  step: number,
): Promise<{ try: BisectTry; interrupted: boolean }> {
  const { req, deps, cost } = bench;
  const good = bench.good.commit;
  const goodBuild = bench.good.build;
  const t0 = Date.now();
  const label = short(commit.sha);
  const runDir = path.join(req.outDir, `step-${step}-${label}-try-${t}`);
  const outcome = await (deps.pipeline ?? runPipeline)(
    {
      arms: {
        kind: 'installed',
        arms: [
          { label: 'good', binDir: goodBuild.binDir, settings: {}, build: { ...goodBuild.record } },
          { label, binDir: built.binDir, settings: {}, build: { ...built.record } },
        ],
      },
      workloads: [req.workload],
      ...(req.adaptive
        ? { adaptive: { plan: designSequential({ ...req.adaptive, maxRounds: rounds }) } }
        : { rounds }),
      ...(req.durationS !== undefined ? { durationS: req.durationS } : {}),
      ...(req.seed !== undefined ? { seed: req.seed + t - 1 } : {}),
      order: 'random',
      ...(req.runAs !== undefined ? { runAs: req.runAs } : {}),
      analysis: req.analysis,
      dataChecksums: false,
      ...(req.tmpDir !== undefined ? { tmpDir: req.tmpDir } : {}),
      source: {
        repository: req.repo.input,
        base: { ref: req.good, sha: good.sha, chosenBy: 'bisect: good' },
        head: { sha: commit.sha, chosenBy: `bisect step ${step}` },
      },
      runDir,
    },
    bench.pipelineDeps,
    deps.archive,
  );
  const measureS = (Date.now() - t0) / 1000;
  logArchive(outcome, deps.logger, 'bisect: ');
  cost.measureS += measureS;
  cost.tests += 1;
  const cell = outcome.comparison.comparisons[0]?.cells[0];
  return {
    try: {
      try: t,
      rounds,
      verdict: cell?.verdict ?? 'inconclusive',
      deltaPct: cell?.deltaPct ?? null,
      ci95: cell?.ci95 ?? null,
      pairs: cell?.pairs ?? null,
      ...(cell && decidedBySameCode(cell) ? { sameCompiledCode: true as const } : {}),
      resultsFile: outcome.resultsFile,
      ...(outcome.archived ? { storedAs: outcome.archived.id } : {}),
      measureS: Math.round(measureS * 10) / 10,
    },
    interrupted: outcome.result.status === 'interrupted' || deps.signal?.aborted === true,
  };
}

/** The search's outcome in commits, with the judgements that decided it. */
function bisectOutcome(
  search: SearchResult<RangeCommit, CommitJudgement>,
  commits: RangeCommit[],
): BisectOutcome {
  const judgementOf = (index: number) => search.tested.find((t) => t.index === index)?.detail;
  const o = search.outcome;
  return o.kind === 'found'
    ? {
        kind: 'found',
        firstBad: commits[o.firstBad]!,
        lastGood: commits[o.lastGood]!,
        ...(judgementOf(o.firstBad) ? { judgement: judgementOf(o.firstBad)! } : {}),
      }
    : o.kind === 'not-reproduced'
      ? { kind: 'not-reproduced', judgement: judgementOf(commits.length - 1)! }
      : {
          kind: 'undecided',
          lastGood: commits[o.lastGood]!,
          candidates: commits.slice(o.lastGood + 1, o.firstBad + 1),
          undecided: commits[o.undecided]!,
          interrupted: judgementOf(o.undecided)?.interrupted === true,
        };
}

/** The verdict engine's verdict as a bisection call: only a regression is bad; inconclusive is not a guess. */
export function callOf(verdict: Verdict): Call {
  if (verdict === 'regression') return 'bad';
  if (verdict === 'inconclusive') return 'undecided';
  return 'good';
}
