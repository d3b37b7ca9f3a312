import path from 'node:path';
import type { PatchFile } from './patches.js';
import type { RepoSpec } from './source.js';
import { SourceMirror, short } from './source.js';
import { buildPostgres } from './build.js';
import type { BuildDeps, BuiltInstall } from './build-record.js';
import { inStep, requireGit } from './build-step.js';
import { cacheLayout } from './cache.js';
import { detectToolchain } from './toolchain.js';

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
