/**
 * Build PostgreSQL from a commit (plus patches) into a cached install prefix: resolve the exact sha,
 * look the install up by key, else, under the key's lock, fetch, check out, patch, configure, compile,
 * install into a staging directory, move the tree into place, verify it, and write the completion
 * marker last. The build record goes into the arm (results arms[].build). As root, every step that runs
 * the tree's own code (configure, compile, install, the built programs) runs as the unprivileged run-as
 * user (build-user.ts), so that it cannot read the token in root's processes.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inspectBinDir } from '../cluster/cluster.js';
import { installRunner, type InstallDeps } from '../cluster/install-runner.js';
import { probeOptions } from '../../machine/os/process.js';
import { acquireLock, describeWait } from '../../machine/os/file-lock.js';
import { PGPERF_VERSION } from '../../core/version.js';
import { errorMessage } from '../../core/util/errors.js';
import type { BuildDeps, BuildRecord, BuildRequest, BuiltInstall, Phase } from './build-record.js';
import { roundAll, summaryLine } from './build-record.js';
import { inStep, requireGit, run } from './build-step.js';
import { chooseStrategy, type BuildStep, type StepContext } from './builder.js';
import {
  buildKey,
  cacheLayout,
  checkFreeSpace,
  markComplete,
  MIN_FREE_BYTES,
  moveIntoPlace,
  mkdirPublic,
  slotPaths,
  type CacheLayout,
  type SlotPaths,
} from './cache.js';
import { findMissingDependencies, missingDependencyError } from './deps.js';
import { BUILD_RECIPE_VERSION } from './build-options.js';
import { checkPrefixUsable, findCompleted, removeUnfinished, sweepAbandoned } from './slot.js';
import { applyPatches } from './patches.js';
import { SourceMirror, type GitDeps } from './source.js';
import { short } from '../../core/util/commit-id.js';
import { ccacheEnv, detectToolchain, parseCcacheStatsLog, type Toolchain } from './toolchain.js';
import { resolveRunAs } from '../cluster/run-as.js';
import {
  freezeTree,
  handOverBuild,
  readUserFile,
  removeUserTree,
  takeBackLog,
  takeBackStaged,
  userStepEnv,
  type BuildUser,
} from './build-user.js';

/** Builds (or finds in the cache) the install of one commit plus patches. */
export async function buildPostgres(req: BuildRequest, deps: BuildDeps): Promise<BuiltInstall> {
  const started = Date.now();
  const env = deps.env ?? process.env;
  const what = `build ${req.label}`;
  const layout = cacheLayout(path.resolve(req.cacheDir));
  const gitDeps: GitDeps = { runner: deps.runner, logger: deps.logger, env, signal: deps.signal };
  await requireGit(env, what);
  const toolchain = deps.toolchain ?? (await detectToolchain(env, deps.runner, deps.signal));
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
  const { release, waited } = await acquireLock(paths.lock, {
    logger: deps.logger,
    what: `another build of ${short(sha)} (${req.label})`,
    signal: deps.signal,
  });
  try {
    // Another process may have finished the same build while this one waited for the lock: the hit says so.
    const builtMeanwhile = await findCompleted(paths, key, req, started, deps.logger, waited);
    if (builtMeanwhile) return builtMeanwhile;
    if (waited) deps.logger.info(`${what}: ${describeWait(waited)} to finish; it left no install: building`);
    // As root: the unprivileged user (created when missing) that runs the tree's code.
    const user = await resolveRunAs(deps.runAs, { runner: deps.runner, logger: deps.logger });
    return await buildSlot({
      user,
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
  /** Who runs the tree's code (as root, the run-as user); undefined: pgperf's own user. */
  user?: BuildUser;
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
  if (s.user) await removeUserTree(paths.work, deps.runner);
  await removeUnfinished(paths, Boolean(req.prefix), s.mirror);
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
      const missing = await findMissingDependencies(chosen.system, s.env, deps.runner, deps.signal);
      if (missing.length) throw missingDependencyError(missing, what);
      return chosen;
    });
    await timed('fetch', 'fetch', () => s.mirror.checkout(s.sha, paths.src));
    if (req.patches.length) {
      await timed('patch', 'patch', () => applyPatches(paths.src, req.patches, what, s.gitDeps));
    }
    // From here on the tree's own code runs: as root, as the run-as user, in a work directory of its own.
    const user = s.user;
    if (user) {
      await timed('configure', 'configure', () =>
        handOverBuild(user, { work: paths.work, log: paths.log, ccache: s.layout.ccache }, deps.runner),
      );
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
        ...(user ? userStepEnv(user, paths.work) : {}),
      },
      jobs: deps.jobs ?? os.availableParallelism(),
      logFile: paths.log,
      runner: deps.runner,
      signal: deps.signal,
      ...(user ? { user } : {}),
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
      ? parseCcacheStatsLog(
          user ? await readUserFile(paths.statsLog) : await readFile(paths.statsLog, 'utf8').catch(() => ''),
        )
      : undefined;
    const verified = await timed('install', 'install', async () => {
      await strategy.install(ctx);
      const staged = path.join(paths.stage, paths.install);
      if (user) {
        // Root's alone (readable and executable by all) before root moves it, checked for planted links.
        await takeBackStaged(paths.work, paths.stage, staged, deps.runner);
      } else {
        // PostgreSQL runs as an unprivileged user when pgperf is root: it must read and execute the tree.
        await run(deps.runner, 'chmod', ['-R', 'a+rX', staged]);
      }
      await moveIntoPlace(staged, paths.install);
      moved = true;
      // Frozen again in place: nothing a left-over process of the build added stays the user's.
      if (user) await freezeTree(paths.install, deps.runner);
      // The built programs are the tree's code too.
      return verifyInstall(paths.install, what, { runner: deps.runner, runAs: user, signal: deps.signal });
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
    let removed = true;
    if (s.user) {
      // Never node's rm on a tree the user wrote: it follows a link planted while it runs.
      removed = await removeUserTree(paths.work, deps.runner).then(
        () => true,
        (e: unknown) => {
          deps.logger.warn(`${what}: removing the work directory ${paths.work} failed: ${errorMessage(e)}`);
          return false;
        },
      );
      await takeBackLog(paths.log, deps.runner);
    }
    if (removed) {
      await s.mirror.removeCheckout(paths.src).catch(() => {});
      await rm(paths.work, { recursive: true, force: true });
    }
  }
}

async function verifyInstall(
  installDir: string,
  what: string,
  deps: InstallDeps,
): Promise<{ version: string; cflags: string }> {
  const binDir = path.join(installDir, 'bin');
  const version = await inspectBinDir(binDir, what, deps);
  const cflags = await installRunner(deps).run(
    path.join(binDir, 'pg_config'),
    ['--cflags'],
    probeOptions(deps.signal),
  );
  deps.signal?.throwIfAborted();
  return { version: version.text, cflags: cflags.stdout.trim() };
}
