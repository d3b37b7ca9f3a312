/**
 * Build PostgreSQL from a commit (plus patches) into a cached install prefix: resolve the exact sha,
 * look the install up by key, else, under the key's lock, fetch, check out, patch, configure, compile,
 * install into a staging directory, move the tree into place, verify it, and write the completion
 * marker last. The build record goes into the arm (results arms[].build).
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inspectBinDir } from '../cluster/cluster.js';
import { UserError, errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { ProcessRunner } from '../util/process.js';
import { PGPERF_VERSION } from '../version.js';
import { BuildStepError, chooseStrategy, type BuildStep, type StepContext } from './builder.js';
import {
  buildKey,
  cacheLayout,
  checkFreeSpace,
  markComplete,
  MIN_FREE_BYTES,
  moveIntoPlace,
  readCompleted,
  mkdirPublic,
  slotPaths,
  COMPLETE_MARKER,
  type CacheLayout,
  type SlotPaths,
} from './cache.js';
import { acquireLock, tryLock } from '../util/file-lock.js';
import { findOnPath } from '../util/find-on-path.js';
import { findMissingDependencies, missingDependencyError } from './deps.js';
import { BUILD_RECIPE_VERSION, type BuildSystem } from './options.js';
import { SourceMirror, applyPatches, short, type GitDeps, type PatchFile, type RepoSpec } from './source.js';
import {
  ccacheEnv,
  detectToolchain,
  parseCcacheStatsLog,
  type CcacheStats,
  type Compiler,
  type Platform,
  type Toolchain,
} from './toolchain.js';

export interface BuildRequest {
  /** Names the build in progress lines and errors: "base", "head", "build". */
  label: string;
  repo: RepoSpec;
  ref: string;
  /** The exact commit when already resolved (a merge-base); else resolved from `ref`. */
  sha?: string;
  patches: readonly PatchFile[];
  /** `--build-option`s, after the pinned release options. */
  extraOptions: readonly string[];
  cacheDir: string;
  /** Install here instead of the cache's installs/<key>. */
  prefix?: string;
  /** Why this commit was chosen (base arms): "explicit ref" or "merge-base of X and Y". */
  baseChosenBy?: string;
}

export interface BuildDeps {
  runner: ProcessRunner;
  logger: Logger;
  /** Environment of git and the build (PATH, CC); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Aborting kills the running step and cleans up; nothing is cached. */
  signal?: AbortSignal;
  /** Parallel compile jobs; default: the CPUs available. */
  jobs?: number;
  /** Free space required before building; default MIN_FREE_BYTES. */
  minFreeBytes?: number;
  /** Detected once and shared by the builds of one run. */
  toolchain?: Toolchain;
}

export type Phase = 'resolve' | 'fetch' | 'patch' | 'configure' | 'compile' | 'install';

/** What was built, how and from what; stored in the install's marker and in results arms[].build. */
export interface BuildRecord {
  repo: string;
  ref: string;
  sha: string;
  patches: Array<{ file: string; sha256: string }>;
  baseChosenBy?: string;
  key: string;
  buildSystem: BuildSystem;
  /** The full meson setup / configure option list. */
  options: string[];
  /** The compiler command the build ran (with ccache when installed). */
  cc: string;
  compiler: Compiler;
  platform: Platform;
  /** `pg_config --cflags` of the result. */
  cflags: string;
  serverVersion: string;
  /** ccache hits and misses of the compile step. */
  ccache?: CcacheStats;
  /** Seconds per phase of the build that produced the install. */
  durationsS: Partial<Record<Phase, number>>;
  builtAt: string;
  /** True when this run found the install in the cache. */
  cacheHit: boolean;
  /** Seconds this run spent on a cache hit (resolving the ref and finding the install). */
  hitS?: number;
  installPrefix: string;
  logFile: string;
  pgperfVersion: string;
}

export interface BuiltInstall {
  installDir: string;
  binDir: string;
  record: BuildRecord;
}

/** Builds (or finds in the cache) the install of one commit plus patches. */
export async function buildPostgres(req: BuildRequest, deps: BuildDeps): Promise<BuiltInstall> {
  const started = Date.now();
  const env = deps.env ?? process.env;
  const what = `build ${req.label}`;
  const layout = cacheLayout(path.resolve(req.cacheDir));
  const gitDeps: GitDeps = { runner: deps.runner, logger: deps.logger, env, signal: deps.signal };
  await requireGit(env, what);
  const toolchain = deps.toolchain ?? (await detectToolchain(env, deps.runner));
  const mirror = new SourceMirror(req.repo, layout.git, layout.locks, gitDeps);
  const resolveStart = Date.now();
  const sha = req.sha ?? (await inStep('fetch', what, undefined, () => mirror.resolve(req.ref)));
  const resolveS = req.sha ? undefined : (Date.now() - resolveStart) / 1000;
  const key = buildKey({
    sha,
    patchHashes: req.patches.map((p) => p.sha256),
    extraOptions: req.extraOptions,
    compiler: toolchain.compiler,
    platform: toolchain.platform,
    recipe: BUILD_RECIPE_VERSION,
  });
  const paths = slotPaths(layout, key, req.prefix);

  const found = await findCompleted(paths, key, req, started, deps.logger);
  if (found) return found;
  if (req.prefix) await checkPrefixUsable(paths.install);
  await mkdirPublic(layout.root);
  await checkFreeSpace(layout.root, deps.minFreeBytes ?? MIN_FREE_BYTES);

  await sweepAbandoned(layout, deps.logger);
  const release = await acquireLock(paths.lock, {
    logger: deps.logger,
    what: `another build of ${short(sha)} (${req.label})`,
    signal: deps.signal,
  });
  try {
    // Another process may have finished the same build while this one waited for the lock.
    const builtMeanwhile = await findCompleted(paths, key, req, started, deps.logger);
    if (builtMeanwhile) return builtMeanwhile;
    return await buildSlot({
      req,
      deps,
      env,
      what,
      sha,
      key,
      paths,
      layout,
      toolchain,
      mirror,
      gitDeps,
      resolveS,
    });
  } finally {
    await release();
  }
}

interface SlotBuild {
  req: BuildRequest;
  deps: BuildDeps;
  env: NodeJS.ProcessEnv;
  what: string;
  sha: string;
  key: string;
  paths: SlotPaths;
  layout: CacheLayout;
  toolchain: Toolchain;
  mirror: SourceMirror;
  gitDeps: GitDeps;
  /** Seconds spent resolving the ref (undefined when the sha was given). */
  resolveS?: number;
}

async function buildSlot(s: SlotBuild): Promise<BuiltInstall> {
  const { req, deps, paths, what } = s;
  const durations: Partial<Record<Phase, number>> = s.resolveS === undefined ? {} : { resolve: s.resolveS };
  const timed = async <T>(phase: Phase, step: BuildStep, fn: () => Promise<T>): Promise<T> => {
    const t0 = Date.now();
    try {
      return await inStep(step, what, paths.log, fn);
    } finally {
      durations[phase] = ((durations[phase] ?? 0) * 1000 + Date.now() - t0) / 1000;
    }
  };

  // Leftovers of an interrupted build of this slot are never reused.
  await removeUnfinished(s);
  await mkdir(paths.work, { recursive: true, mode: 0o755 });
  await mkdir(path.dirname(paths.log), { recursive: true, mode: 0o755 });
  await writeFile(
    paths.log,
    `pgperf ${PGPERF_VERSION} ${what}: ${req.repo.input} ${req.ref} (${s.sha}), key ${s.key}, ${new Date().toISOString()}\n`,
  );
  const patchNote = req.patches.length ? ` + ${req.patches.length} patch(es)` : '';
  deps.logger.info(`${what}: building ${short(s.sha)} (${req.ref}${patchNote}); log: ${paths.log}`);
  const cc = s.toolchain.ccache ? `ccache ${s.toolchain.compiler.command}` : s.toolchain.compiler.command;
  if (!s.toolchain.ccache) {
    deps.logger.warn(`${what}: ccache is not installed, so builds share no objects (apt-get install ccache)`);
  }
  let moved = false;
  try {
    await timed('fetch', 'fetch', () => s.mirror.ensureCommits([s.sha]));
    // The build system and its tools are checked before spending time on a checkout.
    const strategy = await timed('configure', 'configure', async () => {
      const chosen = await chooseStrategy((file) => s.mirror.hasFile(s.sha, file), what);
      const missing = await findMissingDependencies(chosen.system, s.env, deps.runner);
      if (missing.length) throw missingDependencyError(missing, what);
      return chosen;
    });
    await timed('fetch', 'fetch', () => s.mirror.checkout(s.sha, paths.src));
    if (req.patches.length) {
      await timed('patch', 'patch', () => applyPatches(paths.src, req.patches, what, s.gitDeps));
    }
    const ctx: StepContext = {
      what,
      srcDir: paths.src,
      buildDir: strategy.system === 'meson' ? paths.build : paths.src,
      stageDir: paths.stage,
      prefix: paths.install,
      env: {
        ...s.env,
        ...ccacheEnv({ ccacheDir: s.layout.ccache, buildsRoot: s.layout.builds }),
        CC: cc,
        LC_ALL: 'C',
      },
      jobs: deps.jobs ?? os.availableParallelism(),
      logFile: paths.log,
      runner: deps.runner,
      signal: deps.signal,
    };
    const options = await timed('configure', 'configure', async () => {
      const opts = await strategy.options(ctx, req.extraOptions);
      await strategy.configure(ctx, opts);
      return opts;
    });
    await timed('compile', 'compile', () =>
      strategy.compile({ ...ctx, env: { ...ctx.env, CCACHE_STATSLOG: paths.statsLog } }),
    );
    const ccache = s.toolchain.ccache
      ? parseCcacheStatsLog(await readFile(paths.statsLog, 'utf8').catch(() => ''))
      : undefined;
    const verified = await timed('install', 'install', async () => {
      await strategy.install(ctx);
      const staged = path.join(paths.stage, paths.install);
      // PostgreSQL runs as an unprivileged user when pgperf is root: it must read and execute the tree.
      await run(deps.runner, 'chmod', ['-R', 'a+rX', staged]);
      await moveIntoPlace(staged, paths.install);
      moved = true;
      return verifyInstall(paths.install, what, deps.runner);
    });
    const record: BuildRecord = {
      repo: req.repo.input,
      ref: req.ref,
      sha: s.sha,
      patches: req.patches.map((p) => ({ file: p.file, sha256: p.sha256 })),
      ...(req.baseChosenBy ? { baseChosenBy: req.baseChosenBy } : {}),
      key: s.key,
      buildSystem: strategy.system,
      options,
      cc,
      compiler: s.toolchain.compiler,
      platform: s.toolchain.platform,
      cflags: verified.cflags,
      serverVersion: verified.version,
      ...(ccache ? { ccache } : {}),
      durationsS: roundAll(durations),
      builtAt: new Date().toISOString(),
      cacheHit: false,
      installPrefix: paths.install,
      logFile: paths.log,
      pgperfVersion: PGPERF_VERSION,
    };
    await markComplete(paths.install, record); // last: from here on the install is reused
    deps.logger.info(summaryLine(req.label, record));
    return { installDir: paths.install, binDir: path.join(paths.install, 'bin'), record };
  } catch (e) {
    if (moved) await rm(paths.install, { recursive: true, force: true });
    throw e;
  } finally {
    await s.mirror.removeCheckout(paths.src).catch(() => {});
    await rm(paths.work, { recursive: true, force: true });
  }
}

/** A finished install of this key at the slot's path, as this request's record; else undefined. */
async function findCompleted(
  paths: SlotPaths,
  key: string,
  req: BuildRequest,
  started: number,
  logger: Logger,
): Promise<BuiltInstall | undefined> {
  const stored = await readCompleted<BuildRecord>(paths.install, (m) => logger.warn(m));
  if (stored?.key !== key) return undefined;
  const hitS = Math.round((Date.now() - started) / 100) / 10;
  const record: BuildRecord = {
    ...stored,
    // The same install may be reached through another ref or patch file name: record this request's.
    repo: req.repo.input,
    ref: req.ref,
    patches: req.patches.map((p) => ({ file: p.file, sha256: p.sha256 })),
    ...(req.baseChosenBy ? { baseChosenBy: req.baseChosenBy } : {}),
    cacheHit: true,
    hitS,
  };
  if (!req.baseChosenBy) delete record.baseChosenBy;
  logger.info(
    `build ${req.label}: cache hit (sha ${short(stored.sha)}, ${stored.buildSystem}) in ${hitS.toFixed(1)} s: ${paths.install}`,
  );
  return { installDir: paths.install, binDir: path.join(paths.install, 'bin'), record };
}

/** "build head (sha 1a2b3c4, meson): fetch 3 s, configure 12 s, compile 61 s, install 3 s; ccache ..." */
export function summaryLine(label: string, record: BuildRecord): string {
  const phases = Object.entries(record.durationsS)
    .map(([phase, s]) => `${phase} ${s < 10 ? s.toFixed(1) : Math.round(s)} s`)
    .join(', ');
  const cc = record.ccache
    ? `; ccache ${record.ccache.hits}/${record.ccache.hits + record.ccache.misses} hits (${(record.ccache.hitRate * 100).toFixed(1)}%)`
    : '';
  return `build ${label} (sha ${short(record.sha)}, ${record.buildSystem}): ${phases}${cc}`;
}

/** Runs fn as a named step: failures say which step failed (and where the log is). */
async function inStep<T>(
  step: BuildStep,
  what: string,
  logFile: string | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof BuildStepError || (e instanceof Error && e.name === 'AbortError')) throw e;
    const full = errorMessage(e);
    const message = full.startsWith(`${what}: `) ? full.slice(what.length + 2) : full;
    const hint =
      (e as NodeJS.ErrnoException).code === 'ENOSPC'
        ? ' (the disk is full: free space or pass --cache-dir)'
        : '';
    if (logFile)
      await writeFile(logFile, `\n==> ${step} failed: ${message}\n`, { flag: 'a' }).catch(() => {});
    throw new BuildStepError(
      step,
      `${what}: ${step} failed: ${message}${hint}${logFile ? `\n--- full log: ${logFile}` : ''}`,
      logFile,
    );
  }
}

async function requireGit(env: NodeJS.ProcessEnv, what: string): Promise<void> {
  if (!(await findOnPath('git', env.PATH))) {
    throw missingDependencyError([{ name: 'git', kind: 'program', package: 'git' }], what);
  }
}

/** An existing --prefix must be empty or a pgperf install (which is then replaced). */
async function checkPrefixUsable(dir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return; // does not exist: fine
  }
  if (entries.length && !entries.includes(COMPLETE_MARKER)) {
    throw new UserError(
      `--prefix ${dir}: the directory exists and is not a pgperf install; give a new or empty directory`,
    );
  }
}

/**
 * Removes what builds that were killed (kill -9, power loss) left behind: work directories, and installs
 * without a marker, of slots whose lock nobody alive holds.
 */
async function sweepAbandoned(layout: CacheLayout, logger: Logger): Promise<void> {
  for (const slot of await readdir(layout.builds).catch(() => [] as string[])) {
    const release = await tryLock(path.join(layout.locks, `${slot}.lock`), logger);
    if (!release) continue; // a live build
    try {
      logger.debug(`removing the work directory of an abandoned build: ${path.join(layout.builds, slot)}`);
      await rm(path.join(layout.builds, slot), { recursive: true, force: true });
      const install = path.join(layout.installs, slot);
      if (!(await readCompleted(install))) await rm(install, { recursive: true, force: true });
    } finally {
      await release();
    }
  }
}

/** Removes an unfinished install (no marker) and the work directory of an interrupted build. */
async function removeUnfinished(s: SlotBuild): Promise<void> {
  if (!s.req.prefix) await rm(s.paths.install, { recursive: true, force: true });
  await s.mirror.removeCheckout(s.paths.src).catch(() => {});
  await rm(s.paths.work, { recursive: true, force: true });
}

async function verifyInstall(
  installDir: string,
  what: string,
  runner: ProcessRunner,
): Promise<{ version: string; cflags: string }> {
  const binDir = path.join(installDir, 'bin');
  const version = await inspectBinDir(binDir, what, runner);
  const cflags = await runner.run(path.join(binDir, 'pg_config'), ['--cflags']);
  return { version: version.text, cflags: cflags.stdout.trim() };
}

async function run(runner: ProcessRunner, command: string, args: string[]): Promise<void> {
  const res = await runner.run(command, args);
  if (res.exitCode !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${res.stderr.trim()}`);
}

const PHASES: readonly Phase[] = ['resolve', 'fetch', 'patch', 'configure', 'compile', 'install'];

/** Durations in the order the phases run, to 0.1 s. */
function roundAll(durations: Partial<Record<Phase, number>>): Partial<Record<Phase, number>> {
  return Object.fromEntries(
    PHASES.filter((p) => durations[p] !== undefined).map((p) => [p, Math.round(durations[p]! * 10) / 10]),
  );
}

export interface ComparisonRequest {
  repo: RepoSpec;
  baseRef: string;
  headRef: string;
  /** Build the merge-base of the two refs as the base instead of baseRef itself. */
  mergeBase: boolean;
  basePatches: readonly PatchFile[];
  headPatches: readonly PatchFile[];
  extraOptions: readonly string[];
  cacheDir: string;
}

/**
 * Builds base, then head (so head reuses base's objects through ccache): the two arms of a comparison.
 * With mergeBase, the base is the merge-base of the two refs, recorded as such.
 */
export async function buildComparison(
  req: ComparisonRequest,
  deps: BuildDeps,
): Promise<{ base: BuiltInstall; head: BuiltInstall }> {
  const env = deps.env ?? process.env;
  await requireGit(env, 'build');
  const toolchain = deps.toolchain ?? (await detectToolchain(env, deps.runner));
  const layout = cacheLayout(path.resolve(req.cacheDir));
  const mirror = new SourceMirror(req.repo, layout.git, layout.locks, {
    runner: deps.runner,
    logger: deps.logger,
    env,
    signal: deps.signal,
  });
  const shared = { repo: req.repo, extraOptions: req.extraOptions, cacheDir: req.cacheDir };
  const headSha = await inStep('fetch', 'build head', undefined, () => mirror.resolve(req.headRef));
  let baseSha = await inStep('fetch', 'build base', undefined, () => mirror.resolve(req.baseRef));
  let baseRef = req.baseRef;
  let baseChosenBy = 'explicit ref';
  if (req.mergeBase) {
    baseSha = await inStep('fetch', 'build base', undefined, () => mirror.mergeBase(baseSha, headSha));
    baseChosenBy = `merge-base of ${req.baseRef} and ${req.headRef}`;
    baseRef = baseSha;
    deps.logger.info(`base: ${baseChosenBy} is ${short(baseSha)}`);
  }
  const withToolchain = { ...deps, toolchain };
  const base = await buildPostgres(
    { ...shared, label: 'base', ref: baseRef, sha: baseSha, patches: req.basePatches, baseChosenBy },
    withToolchain,
  );
  const head = await buildPostgres(
    { ...shared, label: 'head', ref: req.headRef, sha: headSha, patches: req.headPatches },
    withToolchain,
  );
  return { base, head };
}
