/**
 * `pgperf attribute` (docs/attribute.md): the commits of a first-parent range that moved the instructions
 * per transaction, each with its change and share. The search (core/attribution/attribution-search.ts)
 * asks for commits; here each is built with the build stage (cached by commit, ccache) and counted alone
 * by the instruction counting of the compare pipeline (run/counted/instruction-phase.ts: its own loaded
 * server under the counter, the workload's fixed transaction counts, every repetition kept): instructions
 * per transaction are absolute, so a commit needs no partner in its run. Every count is driven by the
 * `from` end's client, so a change of pgbench inside the range changes nothing that is counted. Whether
 * two commits build the same compiled code is compareCompiledCode on their installs, as the pipeline asks it.
 * Returns the report (attribution-report.ts) and writes it as <out>/attribution.json.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import {
  UnmeasuredCommit,
  searchAttribution,
  type AttributionSearchResult,
} from '../../core/attribution/attribution-search.js';
import type { PointCounts } from '../../core/attribution/point-judgement.js';
import { accountAttribution } from '../../core/attribution/attribution-accounting.js';
import {
  attributionReport,
  type AttributionCommit,
  type AttributionCost,
  type AttributionReport,
} from '../../core/attribution/attribution-report.js';
import { ATTRIBUTE_COMMITS, ATTRIBUTE_COUNTED, rangeText } from '../../core/bounds.js';
import {
  DEFAULT_INSTRUCTION_SETTINGS,
  type InstructionSettings,
  type InstructionsRecord,
} from '../../core/results/instructions.js';
import type { CompiledCodeComparison } from '../../core/results/result-types.js';
import { short } from '../../core/util/commit-id.js';
import { UserError, errorMessage } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import { writeAtomically } from '../../machine/os/atomic-write.js';
import type { ProcessRunner } from '../../machine/os/process.js';
import type { BuildDeps, BuiltInstall } from '../../postgres/builds/build-record.js';
import { buildPostgres } from '../../postgres/builds/build.js';
import { compiledCodeComparer } from '../../postgres/builds/compiled-code.js';
import type { RepoSpec } from '../../postgres/builds/source.js';
import { detectToolchain, type Toolchain } from '../../postgres/builds/toolchain.js';
import {
  chooseCounter,
  probeCounters,
  type CounterChoice,
  type CounterProbe,
} from '../../postgres/instructions/counter.js';
import type { Workload } from '../../drivers/workload.js';
import { countInstructions } from '../../run/counted/instruction-phase.js';
import { countable } from '../../run/counted/default-evidence.js';
import { commitRange, type CommitRange, type RangeRequest } from '../bisect/commit-range.js';
import type { GitDeps } from '../../postgres/builds/source.js';
import { sourceComparer } from './source-changes.js';
import { COUNT_PROFILE_DIR, attachMovers, countRunDir } from './culprit-profiles.js';
import { renderWaterfallSvg } from '../../core/report/attribution/waterfall-svg.js';
import { renderAttributionMarkdown } from '../../core/report/attribution/attribution-markdown.js';
import {
  JOURNAL_FILE,
  journalCounting,
  openJournal,
  type AttributionJournal,
} from './attribution-journal.js';

/** The waterfall image under --out. */
export const WATERFALL_FILE = 'waterfall.svg';

/** Commits counted at most unless --max-commits says otherwise. */
export const DEFAULT_MAX_COMMITS = 40;

export interface AttributionRequest {
  repo: RepoSpec;
  from: string;
  to: string;
  cacheDir: string;
  /** `--build-option`s for every build. */
  extraOptions: readonly string[];
  /** Each counted at 1 client with its `instructions` settings (the defaults when it has none). */
  workloads: readonly Workload[];
  /** The floor in percent for every workload (default: each workload's instruction threshold). */
  floorPct?: number;
  maxCommits: number;
  instructionCounter?: CounterChoice;
  runAs?: string;
  tmpDir?: string;
  /** attribution.json, and one directory of counting runs per commit under counts/. */
  outDir: string;
}

export interface AttributionDeps {
  runner: ProcessRunner;
  logger: Logger;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** The commits from `from` to `to` (default commitRange on the build cache's mirror). */
  range?: (req: RangeRequest, deps: GitDeps) => Promise<CommitRange>;
  /** Builds one commit (default buildPostgres). */
  build?: (req: Parameters<typeof buildPostgres>[0], deps: BuildDeps) => Promise<BuiltInstall>;
  /** Counts the instructions of installs (default countInstructions). */
  count?: typeof countInstructions;
  /** Whether two installs run the same compiled code (default compareCompiledCode as the pipeline runs it). */
  compareCode?: (a: BuiltInstall, b: BuiltInstall) => Promise<CompiledCodeComparison>;
  /**
   * Whether the changes from one commit to another cannot move the instructions executed, from the source
   * alone (default sourceComparer on the build cache's mirror: docs, C comments and layout).
   */
  sameSource?: (a: AttributionCommit, b: AttributionCommit) => Promise<boolean>;
  /** What probeCounters found (probed here otherwise). */
  probe?: CounterProbe;
  /** The compiler and platform of the builds (detected here otherwise). */
  toolchain?: Toolchain;
}

/** How the range flags are named in errors. */
const NAMES = {
  good: '--from',
  bad: '--to',
  needs: 'an attribution needs --from in the history of --to',
};

/**
 * The refusals that need no build and no repository: a workload that cannot be counted (sysbench runs
 * for a time; pgbench with pipeline is not counted), a floor or a budget out of range.
 */
export function checkAttributionRequest(
  req: Pick<AttributionRequest, 'workloads' | 'floorPct' | 'maxCommits'>,
): void {
  if (req.workloads.length === 0) throw new UserError('--workload: give at least one workload to count');
  for (const w of req.workloads) {
    if (!countable(w)) {
      throw new UserError(
        `--workload ${w.name}: its instructions cannot be counted (${w.tool === 'pgbench' ? 'pipeline' : `tool ${w.tool} runs for a time, not a fixed number of transactions`}); attribute counts pgbench workloads without pipeline`,
      );
    }
  }
  if (req.floorPct !== undefined && !(req.floorPct > 0 && req.floorPct <= 100)) {
    throw new UserError(`--floor must be a percentage above 0 and at most 100, got '${req.floorPct}'`);
  }
  if (
    !Number.isInteger(req.maxCommits) ||
    req.maxCommits < ATTRIBUTE_COUNTED.min ||
    req.maxCommits > ATTRIBUTE_COUNTED.max
  ) {
    throw new UserError(
      `--max-commits must be a whole number ${rangeText(ATTRIBUTE_COUNTED)}, got '${req.maxCommits}'`,
    );
  }
}

/** The range's commits, first-parent only and within ATTRIBUTE_COMMITS. */
export async function attributionRange(
  req: Pick<AttributionRequest, 'repo' | 'from' | 'to' | 'cacheDir'>,
  deps: AttributionDeps,
): Promise<AttributionCommit[]> {
  const gitDeps: GitDeps = {
    runner: deps.runner,
    logger: deps.logger,
    env: deps.env ?? process.env,
    ...(deps.signal ? { signal: deps.signal } : {}),
  };
  const range = await (deps.range ?? commitRange)(
    { repo: req.repo, good: req.from, bad: req.to, cacheDir: req.cacheDir, names: NAMES },
    gitDeps,
  ).catch((e: unknown) => {
    // The mirror names the ref it cannot find; the flag that gave it is said first.
    if (e instanceof UserError && e.message.startsWith('unknown ref ')) {
      const flag = e.message.startsWith(`unknown ref '${req.from}'`) ? '--from' : '--to';
      throw new UserError(`${flag}: ${e.message}`);
    }
    throw e;
  });
  const from = range.commits[0]!;
  const to = range.commits.at(-1)!;
  if (range.walk !== 'first-parent') {
    throw new UserError(
      `--from ${req.from} (${short(from.sha)}) is not on the first-parent line of --to ${req.to} (${short(to.sha)}) (it is on a merged branch): give a --from on --to's first-parent line, such as the merge-base`,
    );
  }
  const n = range.commits.length - 1;
  if (n > ATTRIBUTE_COMMITS.max) {
    throw new UserError(
      `--from ${req.from} .. --to ${req.to} holds ${n} commits on the first-parent line; an attribution searches ${rangeText(ATTRIBUTE_COMMITS)}: give a shorter range (a release at a time)`,
    );
  }
  return range.commits;
}

export async function runAttribution(
  req: AttributionRequest,
  deps: AttributionDeps,
): Promise<AttributionReport> {
  const started = Date.now();
  const { logger } = deps;
  const env = deps.env ?? process.env;
  checkAttributionRequest(req);
  // The range first (the user's refs), then the counter: both before anything is built.
  const commits = await attributionRange(req, deps);
  const probe = deps.probe ?? (await probeCounters(deps.runner, deps.signal));
  const counter = chooseCounter(req.instructionCounter ?? { counter: 'auto' }, probe, 'attribute');
  const items = req.workloads.map((w) => ({
    workload: w,
    settings: w.instructions ?? DEFAULT_INSTRUCTION_SETTINGS,
  }));
  const floors = Object.fromEntries(
    items.map((i) => [i.workload.name, req.floorPct ?? i.settings.thresholdPct]),
  );
  logger.info(
    `attribute: ${commits.length - 1} commit(s) after ${short(commits[0]!.sha)} up to ${short(commits.at(-1)!.sha)}; ` +
      `${items.map((i) => `${i.workload.name} (floor ±${floors[i.workload.name]}%)`).join(', ')}; at most ${Math.min(req.maxCommits, commits.length)} commits counted`,
  );
  const cost: AttributionCost = { builds: 0, cacheHits: 0, reused: 0, buildS: 0, countS: 0, totalS: 0 };
  const toolchain = deps.toolchain ?? (await detectToolchain(env, deps.runner, deps.signal));
  const signal = deps.signal ? { signal: deps.signal } : {};
  const buildDeps: BuildDeps = { runner: deps.runner, logger, env, ...signal, toolchain };
  const counterName = counter.kind === 'perf' ? `perf (${counter.event})` : 'cachegrind';
  const journal = await resumeJournal(req, commits[0]!, items, counterName, toolchain, logger);
  const builds = new Map<string, Promise<BuiltInstall>>();
  const build = (c: AttributionCommit): Promise<BuiltInstall> => {
    let b = builds.get(c.sha);
    if (!b) {
      b = buildOne(req, deps, buildDeps, c, cost);
      builds.set(c.sha, b);
    }
    return b;
  };
  const compare = deps.compareCode ?? (await compiledCodeComparer(req, deps, ['older', 'newer']));
  let clientBinDir: string | undefined;

  const fromJournal = new Set<string>();
  const measure = async (c: AttributionCommit): Promise<PointCounts> => {
    const held = journal.counts(c.sha);
    if (held) {
      cost.reused += 1;
      fromJournal.add(c.sha);
      logger.info(`attribute: ${short(c.sha)} was counted before (the journal): not counted again`);
      return held;
    }
    const built = await build(c);
    // The `from` end's pgbench drives every count, even when the journal held the end's counts.
    clientBinDir ??= c.sha === commits[0]!.sha ? built.binDir : (await build(commits[0]!)).binDir;
    const counts = await countCommit(req, { ...deps, probe }, items, c, built, clientBinDir, cost);
    await journal.recordCounts(c.sha, counts);
    return counts;
  };
  const sameSource = journaled(
    journal,
    'source',
    deps.sameSource ?? defaultSameSource(req, { ...deps, env }),
  );
  const sameCode = journaled(journal, 'code', async (a, b) => {
    // One build at a time: the machine's cores go to the compiler of one.
    const ia = await build(a);
    const ib = await build(b);
    try {
      const code = await compare(ia, ib);
      // Byte for byte only: a build changed only in immediates may be a comment that moved a __LINE__,
      // or a loop's bound (as many instructions, or not): the source tells comments apart (sameSource).
      if (code.identical && !code.unknown) {
        logger.info(
          `attribute: ${short(b.sha)} builds the same compiled code as ${short(a.sha)}: not counted`,
        );
        return true;
      }
      return false;
    } catch (e) {
      if (deps.signal?.aborted) throw e;
      logger.warn(
        `attribute: the compiled code of ${short(a.sha)} and ${short(b.sha)} could not be compared (${errorMessage(e)}); counting`,
      );
      return false;
    }
  });

  let search: AttributionSearchResult<AttributionCommit>;
  try {
    search = await searchAttribution(
      commits,
      { floors, maxCounted: req.maxCommits },
      {
        measure,
        sameCode,
        sameSource,
        onProgress: (p) =>
          logger.info(
            `attribute: ${p.counted} of at most ${p.atMost} commits counted; range ${short(p.from.sha)}..${short(p.to.sha)}: counting ${short(p.at.sha)} "${p.at.subject}"`,
          ),
      },
    );
  } catch (e) {
    // Only an end can fail this way (a commit inside is passed over): nothing to attribute without it.
    if (e instanceof UnmeasuredCommit) throw new UserError(`attribute: an end of the range: ${e.message}`);
    throw e;
  }
  cost.totalS = (Date.now() - started) / 1000;
  for (const k of ['buildS', 'countS', 'totalS'] as const) cost[k] = Math.round(cost[k] * 10) / 10;
  const report = attributionReport(search, accountAttribution(search, floors), {
    repo: req.repo.input,
    counter: counterName,
    maxCommits: req.maxCommits,
    cost,
    outDir: req.outDir,
  });
  // Each culprit's movers, from the profiles its ends' counts left under counts/.
  return writeReport(
    req.outDir,
    await attachMovers(report, { ...req, counterKind: counter.kind, fromJournal }),
  );
}

/**
 * Counts one commit alone (countInstructions on its build, driven by the `from` end's client), leaving
 * its own profile under counts/ for its culprits' movers (culprit-profiles.ts); a commit whose counting
 * fails is an UnmeasuredCommit.
 */
async function countCommit(
  req: AttributionRequest,
  deps: AttributionDeps & { probe: CounterProbe },
  items: ReadonlyArray<{ workload: Workload; settings: InstructionSettings }>,
  c: AttributionCommit,
  built: BuiltInstall,
  clientBinDir: string,
  cost: AttributionCost,
): Promise<PointCounts> {
  const t0 = Date.now();
  let record: InstructionsRecord;
  try {
    record = await (deps.count ?? countInstructions)(
      items,
      {
        arms: [{ label: short(c.sha), binDir: built.binDir, settings: {}, build: { ...built.record } }],
        instructionCounter: req.instructionCounter ?? { counter: 'auto' },
        workloads: req.workloads,
        runDir: countRunDir(req.outDir, c.sha),
        clientBinDir,
        ...(req.runAs !== undefined ? { runAs: req.runAs } : {}),
        ...(req.tmpDir !== undefined ? { tmpDir: req.tmpDir } : {}),
        dataChecksums: false,
      },
      {
        runner: deps.runner,
        logger: deps.logger,
        ...(deps.signal ? { signal: deps.signal } : {}),
        probe: deps.probe,
      },
      // Each commit's own profile, for its culprits' movers (culprit-profiles.ts).
      { what: `attribute ${short(c.sha)}`, profileDir: COUNT_PROFILE_DIR, armProfiles: true },
    );
  } finally {
    cost.countS += (Date.now() - t0) / 1000;
  }
  if (record.failures.length > 0) {
    throw new UnmeasuredCommit(
      `${short(c.sha)} could not be counted: ${record.failures.map((f) => `${f.workload}: ${f.reason}`).join('; ')}`,
    );
  }
  return Object.fromEntries(
    items.map(({ workload: w }) => [
      w.name,
      record.samples.filter((s) => s.workload === w.name).map((s) => s.perTx),
    ]),
  );
}

/** attribution.json, waterfall.svg and attribution.md (which shows the image beside it) under --out. */
async function writeReport(outDir: string, report: AttributionReport): Promise<AttributionReport> {
  await writeAtomically(path.join(outDir, 'attribution.json'), `${JSON.stringify(report, null, 2)}\n`);
  await writeAtomically(path.join(outDir, WATERFALL_FILE), renderWaterfallSvg(report));
  await writeAtomically(
    path.join(outDir, 'attribution.md'),
    renderAttributionMarkdown(report, { waterfallImage: WATERFALL_FILE }),
  );
  return report;
}

/** The journal under --out, said in the log when it holds counts of an earlier run. */
async function resumeJournal(
  req: AttributionRequest,
  from: AttributionCommit,
  items: Parameters<typeof journalCounting>[0]['workloads'],
  counter: string,
  toolchain: Toolchain,
  logger: Logger,
): Promise<AttributionJournal> {
  await mkdir(req.outDir, { recursive: true });
  const journal = await openJournal(
    req.outDir,
    journalCounting({
      repo: req.repo.url,
      from: from.sha,
      workloads: items,
      buildOptions: req.extraOptions,
      counter,
      compiler: `${toolchain.compiler.version} (${toolchain.compiler.target})`,
    }),
  );
  if (journal.heldAtStart > 0) {
    logger.info(
      `attribute: ${path.join(req.outDir, JOURNAL_FILE)} holds the counts of ${journal.heldAtStart} commit(s) of an earlier run: they are not counted again`,
    );
  }
  return journal;
}

/**
 * A same-code question answered from the journal when it holds the answer, else asked and kept: a resumed
 * run neither builds nor compares again what it compared before.
 */
function journaled(
  journal: AttributionJournal,
  how: 'source' | 'code',
  ask: (a: AttributionCommit, b: AttributionCommit) => Promise<boolean>,
): (a: AttributionCommit, b: AttributionCommit) => Promise<boolean> {
  return async (a, b) => {
    const known = journal.sameCode(how, a.sha, b.sha);
    if (known !== undefined) return known;
    const same = await ask(a, b);
    await journal.recordSameCode(how, a.sha, b.sha, same);
    return same;
  };
}

/**
 * Builds one commit (cached by commit, ccache) and counts it in the cost; a failed build (not an abort,
 * not bad input) is an UnmeasuredCommit, so the search passes over it.
 */
async function buildOne(
  req: AttributionRequest,
  deps: AttributionDeps,
  buildDeps: BuildDeps,
  c: AttributionCommit,
  cost: AttributionCost,
): Promise<BuiltInstall> {
  const t0 = Date.now();
  deps.logger.info(`attribute: building ${short(c.sha)} "${c.subject}"`);
  try {
    const built = await (deps.build ?? buildPostgres)(
      {
        label: short(c.sha),
        repo: req.repo,
        ref: c.sha,
        sha: c.sha,
        patches: [],
        extraOptions: req.extraOptions,
        cacheDir: req.cacheDir,
      },
      buildDeps,
    );
    cost.builds += 1;
    if (built.record.cacheHit) cost.cacheHits += 1;
    return built;
  } catch (e) {
    if (e instanceof UserError || deps.signal?.aborted) throw e;
    throw new UnmeasuredCommit(`${short(c.sha)} could not be built: ${errorMessage(e)}`);
  } finally {
    cost.buildS += (Date.now() - t0) / 1000;
  }
}

/** sourceComparer on the build cache's mirror, said in the log; a source it cannot read is built. */
function defaultSameSource(
  req: Pick<AttributionRequest, 'repo' | 'cacheDir'>,
  deps: Pick<AttributionDeps, 'runner' | 'logger' | 'signal'> & { env: NodeJS.ProcessEnv },
): (a: AttributionCommit, b: AttributionCommit) => Promise<boolean> {
  const { logger } = deps;
  const bySource = sourceComparer(req, {
    runner: deps.runner,
    logger,
    env: deps.env,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  return async (a, b) => {
    try {
      const { same } = await bySource(a.sha, b.sha);
      if (same) {
        logger.info(
          `attribute: ${short(a.sha)}..${short(b.sha)} changes only docs or comments: ${short(b.sha)} runs ${short(a.sha)}'s code, not built`,
        );
      }
      return same;
    } catch (e) {
      if (deps.signal?.aborted) throw e;
      logger.warn(
        `attribute: the source of ${short(a.sha)}..${short(b.sha)} could not be read (${errorMessage(e)}); building`,
      );
      return false;
    }
  };
}
