/**
 * The head a nightly run measures, once for both adapters: an installed bin directory, or the chosen commit
 * built from source alone (base = head is never built). The adapters choose the commit (the CLI's --ref;
 * the Action's head-ref or the event's commit) and say where the source is.
 */
import type { ComparisonRequest } from '../../postgres/builds/build-pair.js';
import { OptionError, type OptionNames } from '../compare/options/option-error.js';
import type { NightlyHead } from './nightly-flow.js';

export type NightlyHeadOption = 'bin' | 'ref' | 'repo';

export interface NightlyHeadOptions {
  /** An installed bin directory to measure instead of building. */
  binDir?: string;
  /** The commit to build: a sha, else a ref. */
  commit: { ref?: string; sha?: string };
  /** Where and how a built head comes from (asked only when it is built). */
  source: () => Pick<ComparisonRequest, 'repo' | 'extraOptions' | 'cacheDir'>;
}

/** @throws OptionError when there is neither an install nor a commit to build. */
export function nightlyHeadOf(
  options: NightlyHeadOptions,
  names: OptionNames<NightlyHeadOption>,
): NightlyHead {
  if (options.binDir) return { kind: 'installed', binDir: options.binDir };
  const at = options.commit.sha ?? options.commit.ref;
  if (!at) {
    throw new OptionError(
      'ref',
      `nothing to measure: give ${names.ref} BRANCH (built from ${names.repo}) or ${names.bin} DIR`,
    );
  }
  return {
    kind: 'build',
    request: {
      ...options.source(),
      baseRef: at,
      headRef: at,
      mergeBase: false,
      basePatches: [],
      headPatches: [],
      headOnly: true,
    },
  };
}
