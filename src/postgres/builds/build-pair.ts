import path from 'node:path';
import type { PatchFile } from './patches.js';
import type { RepoSpec } from './source.js';
import { SourceMirror } from './source.js';
import { short } from '../../core/util/commit-id.js';
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
  /** Build head only: a stored baseline supplies base, so its build would be wasted on a cold cache. */
  headOnly?: boolean;
}

/**
 * Builds base, then head (so head reuses base's objects through ccache): the two arms of a comparison.
 * With mergeBase, the base is the merge-base of the two refs, recorded as such.
 */
export async function buildComparison(
  req: ComparisonRequest,
  deps: BuildDeps,
): Promise<{ base: BuiltInstall; head: BuiltInstall }> {
  const { mirror, headSha, withToolchain, buildHead } = await prepare(req, deps);
  let baseSha = await inStep('fetch', 'build base', undefined, () => mirror.resolve(req.baseRef));
  let baseRef = req.baseRef;
  let baseChosenBy = 'explicit ref';
  if (req.mergeBase) {
    baseSha = await inStep('fetch', 'build base', undefined, () => mirror.mergeBase(baseSha, headSha));
    baseChosenBy = `merge-base of ${req.baseRef} and ${req.headRef}`;
    baseRef = baseSha;
    deps.logger.info(`base: ${baseChosenBy} is ${short(baseSha)}`);
  }
  const base = await buildPostgres(
    { ...sharedOf(req), label: 'base', ref: baseRef, sha: baseSha, patches: req.basePatches, baseChosenBy },
    withToolchain,
  );
  return { base, head: await buildHead() };
}

/** Head alone (with its patches), for a comparison whose base comes from the store. */
export async function buildHeadOnly(req: ComparisonRequest, deps: BuildDeps): Promise<BuiltInstall> {
  return (await prepare(req, deps)).buildHead();
}

const sharedOf = (req: ComparisonRequest) => ({
  repo: req.repo,
  extraOptions: req.extraOptions,
  cacheDir: req.cacheDir,
});

/** git and the toolchain checked, the source mirror opened, head's ref resolved first (its typo fails fast). */
async function prepare(req: ComparisonRequest, deps: BuildDeps) {
  const env = deps.env ?? process.env;
  await requireGit(env, 'build');
  const toolchain = deps.toolchain ?? (await detectToolchain(env, deps.runner, deps.signal));
  const layout = cacheLayout(path.resolve(req.cacheDir));
  const mirror = new SourceMirror(req.repo, layout.git, layout.locks, {
    runner: deps.runner,
    logger: deps.logger,
    env,
    signal: deps.signal,
  });
  const headSha = await inStep('fetch', 'build head', undefined, () => mirror.resolve(req.headRef));
  const withToolchain = { ...deps, toolchain };
  const buildHead = () =>
    buildPostgres(
      { ...sharedOf(req), label: 'head', ref: req.headRef, sha: headSha, patches: req.headPatches },
      withToolchain,
    );
  return { mirror, headSha, withToolchain, buildHead };
}
