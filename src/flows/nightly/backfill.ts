/**
 * A nightly's backfill (`pgperf nightly --backfill N`, the Action's `backfill: N`): before tonight's head,
 * the N commits before it on its first-parent line, oldest first, each built and measured as a night of its
 * own and saved to the store (its source: the head's ref, the commit's sha and its committer date), so a new
 * installation starts with a history, its noise floors and change points. A commit whose compiled code
 * equals its parent's (compiled-code.ts; the parent is the commit before it in the line, built just before)
 * runs what its parent ran: it is skipped, said so. The oldest commit has no built parent and is measured.
 *
 * Order: a series orders its points by run date (core/history/series.ts). Measured oldest first, the
 * backfilled runs' dates follow their commits' order, and tonight's head comes after them: the history is
 * right without a second ordering rule. That holds only for commits newer than everything the store already
 * has, so the line is cut at the newest commit the store holds: a backfill extends a history forward, never
 * into its past (an older commit measured today would plot after the nights that measured its successors).
 *
 * A commit that fails to build is said and passed over (its successor is then measured, having no built
 * parent); a run that does not complete (Ctrl-C, SIGTERM) stops the backfill: what was stored stays.
 */
import path from 'node:path';
import type { ComparisonRequest } from '../../postgres/builds/build-pair.js';
import { cacheLayout } from '../../postgres/builds/cache.js';
import { compiledCodeComparer } from '../../postgres/builds/compiled-code.js';
import { SourceMirror, type FirstParentCommit } from '../../postgres/builds/source.js';
import { BACKFILL_COMMITS, rangeText } from '../../core/bounds.js';
import { short } from '../../core/util/commit-id.js';
import { formatDuration } from '../../core/util/duration.js';
import { errorMessage } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import type { CompiledCodeComparison, RunSource } from '../../core/results/result-types.js';
import type { ProcessRunner } from '../../machine/os/process.js';
import type { ArmSpec } from '../../run/run-loop.js';
import type { ResultStore } from '../../store/store.js';
import type { PipelineDeps, PipelineOutcome, PipelineRequest } from '../compare/pipeline/pipeline.js';
import { OptionError, type OptionNames } from '../compare/options/option-error.js';

export type BackfillOption = 'backfill' | 'bin';

/**
 * The backfill's count against its bound and the head: commits are built, so an installed head cannot be
 * backfilled (there is no source to build its predecessors from).
 * @throws OptionError naming the flag or input, the value and the range; or the install flag.
 */
export function checkBackfill(
  count: number | undefined,
  head: { installed: boolean },
  names: OptionNames<BackfillOption>,
): void {
  if (count === undefined) return;
  if (!Number.isInteger(count) || count < BACKFILL_COMMITS.min || count > BACKFILL_COMMITS.max) {
    throw new OptionError(
      'backfill',
      `${names.backfill} must be a whole number ${rangeText(BACKFILL_COMMITS)} (commits before the head), got '${count}'`,
    );
  }
  if (head.installed) {
    throw new OptionError(
      'backfill',
      `${names.backfill} ${count} builds the commits before the head from source, but ${names.bin} gives an install: build the head from a ref instead, or drop ${names.backfill}`,
    );
  }
}

/** The history the commits are read from: the head's ref resolved, its first-parent line (SourceMirror). */
export type CommitLine = Pick<SourceMirror, 'resolve' | 'firstParents'>;

/** The commits to backfill and those left out, oldest first. */
export interface BackfillSelection {
  commits: FirstParentCommit[];
  /** Fewer commits than asked: the history before the head is that short. */
  shortHistory: boolean;
  /** The newest commit the store already holds, where the line was cut (it and older are not measured). */
  storedAt?: FirstParentCommit;
}

/**
 * The `count` commits before `headSha` on its first-parent line (a merge on the line is one commit of it,
 * its merged branch is not walked), oldest first, cut after the newest one `stored` holds.
 */
export async function selectBackfill(
  line: Pick<CommitLine, 'firstParents'>,
  headSha: string,
  count: number,
  stored: ReadonlySet<string> = new Set(),
): Promise<BackfillSelection> {
  const before = (await line.firstParents(headSha, count + 1)).slice(1);
  const cut = before.findIndex((c) => stored.has(c.sha));
  const kept = cut < 0 ? before : before.slice(0, cut);
  return {
    commits: kept.reverse(),
    shortHistory: before.length < count,
    ...(cut >= 0 ? { storedAt: before[cut]! } : {}),
  };
}

export interface BackfillRequest {
  count: number;
  /** The head's build request: every commit is built with its repository, options and cache, at its sha. */
  build: ComparisonRequest;
  /** The night's source (repository, workflow run, the head's ref): each commit's run records its own sha. */
  source: RunSource;
  /** One commit's nightly run request (the head's, with the commit's arm and source). */
  runRequest(arm: ArmSpec, source: RunSource): Omit<PipelineRequest, 'runDir'>;
  runAs?: string;
  tmpDir?: string;
}

export interface BackfillDeps {
  logger: Logger;
  measure(request: Omit<PipelineRequest, 'runDir'>): Promise<PipelineOutcome>;
  build: NonNullable<PipelineDeps['build']>;
  signal?: AbortSignal;
  /** Read for the commits it already holds (the backfill stops there). */
  history: ResultStore;
  runner: ProcessRunner;
  env?: NodeJS.ProcessEnv;
  /** Where the commits are read (default the build cache's mirror of the repository). */
  line?: CommitLine;
  /** Whether a commit runs its parent's compiled code (default compareCompiledCode on the two installs). */
  compareCode?: (parent: ArmSpec, commit: ArmSpec) => Promise<CompiledCodeComparison>;
  /** Milliseconds now (default Date.now), for the time left. */
  now?: () => number;
}

export interface BackfillOutcome {
  /** Commits measured and saved, oldest first. */
  measured: string[];
  /** Commits not measured: the same compiled code as their parent, or a failed build. */
  skipped: Array<{ sha: string; why: string }>;
  /** The run that did not complete and stopped the backfill (an interrupt): the night stops with it. */
  stopped?: PipelineOutcome;
}

/** Builds and measures the commits before the head, oldest first (see the module comment). */
export async function runBackfill(request: BackfillRequest, deps: BackfillDeps): Promise<BackfillOutcome> {
  const { logger } = deps;
  const now = deps.now ?? Date.now;
  const env = deps.env ?? process.env;
  const line =
    deps.line ??
    (() => {
      const layout = cacheLayout(path.resolve(request.build.cacheDir));
      return new SourceMirror(request.build.repo, layout.git, layout.locks, {
        runner: deps.runner,
        logger,
        env,
        ...(deps.signal ? { signal: deps.signal } : {}),
      });
    })();
  const headSha = await line.resolve(request.build.headRef);
  const stored = await storedCommits(deps.history);
  const selection = await selectBackfill(line, headSha, request.count, stored);
  const { commits } = selection;
  const total = commits.length;
  logger.info(backfillPlanLine(request.count, headSha, selection));
  const outcome: BackfillOutcome = { measured: [], skipped: [] };
  const compare = deps.compareCode ?? (await compiledCodeComparer(request, deps, ['parent', 'commit']));
  const started = now();
  let parent: { sha: string; arm: ArmSpec } | undefined;
  for (const [i, commit] of commits.entries()) {
    const say = (what: string) =>
      logger.info(`backfill ${i + 1}/${total}: ${short(commit.sha)} (${commit.subject}) — ${what}`);
    say(`building${i > 0 ? `; ${timeLeft(now() - started, i, total)}` : ''}`);
    let arm: ArmSpec;
    try {
      arm = await buildCommit(request.build, commit.sha, deps);
    } catch (e) {
      if (deps.signal?.aborted) throw e;
      say(`build failed, skipped: ${errorMessage(e)}`);
      outcome.skipped.push({ sha: commit.sha, why: `build failed: ${errorMessage(e)}` });
      parent = undefined;
      continue;
    }
    // Only a commit whose first parent was built just before is compared (a root commit has none).
    const same =
      parent !== undefined &&
      parent.sha === commit.parents[0] &&
      (await sameCode(compare, parent.arm, arm, logger));
    parent = { sha: commit.sha, arm };
    if (same) {
      say('same code as parent, skipped');
      outcome.skipped.push({ sha: commit.sha, why: 'the same compiled code as its parent' });
      continue;
    }
    say('measuring');
    const source: RunSource = {
      ...request.source,
      head: {
        ...(request.source.head?.ref ? { ref: request.source.head.ref } : {}),
        sha: commit.sha,
        committedAt: commit.committedAt,
        chosenBy: `nightly backfill ${i + 1}/${total} before ${short(headSha)}`,
      },
    };
    const run = await deps.measure(request.runRequest(arm, source));
    if (run.result.status !== 'complete') {
      logger.warn(
        `backfill stopped at ${short(commit.sha)}: its run is '${run.result.status}'; the ${outcome.measured.length} commit(s) measured before it are stored`,
      );
      return { ...outcome, stopped: run };
    }
    outcome.measured.push(commit.sha);
  }
  logger.info(
    `backfill done: ${outcome.measured.length} measured, ${outcome.skipped.length} skipped, in ${formatDuration((now() - started) / 1000)}`,
  );
  return outcome;
}

/** Whether the commit runs its parent's compiled code; a comparison that fails is said, and measured. */
async function sameCode(
  compare: NonNullable<BackfillDeps['compareCode']>,
  parent: ArmSpec,
  commit: ArmSpec,
  logger: Logger,
): Promise<boolean> {
  try {
    const code = await compare(parent, commit);
    return code.identical && !code.unknown;
  } catch (e) {
    logger.warn(
      `backfill: the compiled code could not be compared with the parent's (${errorMessage(e)}); measuring`,
    );
    return false;
  }
}

/** What the backfill will do, said before it starts. */
export function backfillPlanLine(count: number, headSha: string, s: BackfillSelection): string {
  const n = s.commits.length;
  const parts = [`backfill: ${n} commit${n === 1 ? '' : 's'} before ${short(headSha)}, oldest first`];
  if (s.storedAt) {
    parts.push(
      `stopping after ${short(s.storedAt.sha)} (${s.storedAt.subject}), which the store already holds: a backfill extends the history forward`,
    );
  } else if (s.shortHistory) parts.push(`${count} asked, the history before the head holds only ${n}`);
  return parts.join('; ');
}

/** "about 12m left": the average of the commits done so far times those left, the head included. */
export function timeLeft(elapsedMs: number, done: number, total: number): string {
  const each = elapsedMs / 1000 / done;
  return `about ${formatDuration(each * (total - done + 1))} left (with the head)`;
}

/** The shas of the commits the store's runs measured (any arm). */
async function storedCommits(store: ResultStore): Promise<Set<string>> {
  const runs = await store.list();
  return new Set(runs.flatMap((r) => r.commits.flatMap((c) => (c.sha ? [c.sha] : []))));
}

async function buildCommit(build: ComparisonRequest, sha: string, deps: BackfillDeps): Promise<ArmSpec> {
  const arms = await deps.build(
    { ...build, baseRef: sha, headRef: sha, mergeBase: false, headOnly: true },
    deps.signal,
  );
  const arm = arms.find((a) => a.label === 'head');
  if (!arm) throw new Error(`the build of ${short(sha)} gave no head arm`);
  return arm;
}
