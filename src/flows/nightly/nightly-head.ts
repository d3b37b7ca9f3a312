/**
 * The head a nightly run measures and the commit it records, once for both adapters: an installed bin
 * directory, or the chosen commit built from source alone (base = head is never built); the commit is the
 * one given (the CLI's --ref or --commit, the Action's head-ref), else the commit the workflow runs on (the
 * Action's event). The adapters say how they spell their options and where the source is.
 */
import type { ComparisonRequest } from '../../postgres/builds/build-pair.js';
import { OptionError, type OptionNames } from '../compare/options/option-error.js';
import type { NightlyHead } from './nightly-flow.js';

export type NightlyHeadOption = 'bin' | 'ref' | 'commit' | 'repo';

export interface NightlyHeadOptions {
  /** An installed bin directory to measure instead of building. */
  binDir?: string;
  /** The commit to build, or the install's: a branch, a tag or a full sha. */
  ref?: string;
  /** The install's commit, recorded as its sha. */
  sha?: string;
  /** The commit the workflow runs on, taken when none is given. */
  event?: { name: string; sha: string; ref?: string };
  /** Where and how a built head comes from (asked only when it is built). */
  source: () => Pick<ComparisonRequest, 'repo' | 'extraOptions' | 'cacheDir'>;
}

/** Tonight's head, and the commit recorded with the run and how it was chosen. */
export interface NightlyChoice {
  head: NightlyHead;
  /** A built head's sha is the build's; this one is what was asked for. */
  commit: { ref?: string; sha?: string; chosenBy: string };
}

/** @throws OptionError when there is neither an install nor a commit to build. */
export function nightlyHeadOf(
  options: NightlyHeadOptions,
  names: OptionNames<NightlyHeadOption>,
): NightlyChoice {
  const commit = nightlyCommitOf(options, names);
  if (options.binDir) return { head: { kind: 'installed', binDir: options.binDir }, commit };
  const at = commit.sha ?? commit.ref;
  if (!at) {
    throw new OptionError(
      'ref',
      `nothing to measure: give ${names.ref} BRANCH (built from ${names.repo}) or ${names.bin} DIR`,
    );
  }
  return {
    head: {
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
    },
    commit,
  };
}

/** The commit given (a full sha recorded as a sha), else the event's; said with the install it names. */
function nightlyCommitOf(
  options: Omit<NightlyHeadOptions, 'source'>,
  names: OptionNames<NightlyHeadOption>,
): NightlyChoice['commit'] {
  const install = options.binDir ? ` (${names.bin} ${options.binDir})` : '';
  const { ref, sha, event } = options;
  if (ref) {
    const isSha = /^[0-9a-f]{40}$/i.test(ref);
    return { ...(isSha ? { sha: ref } : { ref }), chosenBy: `nightly: ${names.ref}${install}` };
  }
  if (sha) return { sha, chosenBy: `nightly: ${names.commit}${install}` };
  if (event) {
    return {
      sha: event.sha,
      ...(event.ref ? { ref: event.ref } : {}),
      chosenBy: `nightly: the ${event.name || 'workflow'} event's commit${install}`,
    };
  }
  return { chosenBy: `nightly${install}` };
}
