/**
 * What a build is asked for and what it yields: the request, the record stored in the install's marker and
 * in results arms[].build, and the one-line summary of it.
 */
import type { Logger } from '../../core/util/logger.js';
import type { ProcessRunner } from '../../machine/os/process.js';
import type { PatchFile } from './patches.js';
import type { RepoSpec } from './source.js';
import type { Toolchain } from './toolchain.js';
import { short } from '../../core/util/commit-id.js';
import type { Phase, BuildRecord } from '../../core/results/result-types.js';
export type { Phase, BuildRecord };

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
  /**
   * As root: the unprivileged user that runs the tree's code (configure, compile, install, the built
   * programs), created when missing; default pgperf's run-as user (`pgperf`). Ignored when not root.
   */
  runAs?: string;
}

export interface BuiltInstall {
  installDir: string;
  binDir: string;
  record: BuildRecord;
}

const PHASES: readonly Phase[] = ['resolve', 'fetch', 'patch', 'configure', 'compile', 'install'];

/** Durations in the order the phases run, to 0.1 s. */
export function roundAll(durations: Partial<Record<Phase, number>>): Partial<Record<Phase, number>> {
  return Object.fromEntries(
    PHASES.filter((p) => durations[p] !== undefined).map((p) => [p, Math.round(durations[p]! * 10) / 10]),
  );
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
