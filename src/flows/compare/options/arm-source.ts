/**
 * The arms of a comparison, once for both adapters: installs given as bin dirs (with settings for one arm
 * each), or base and head built from source (refs, patches, a commitfest entry, build options), checked
 * against each other and made the pipeline's `ArmSource`. The adapters read their flags or inputs into the
 * plain `ArmOptions` and say how they spell them (`ArmNames`: '--base' on the CLI, "input 'base-ref'" in
 * the Action); the refusals are OptionErrors worded in that spelling.
 */
import type { ComparisonRequest } from '../../../postgres/builds/build-pair.js';
import { CFBOT_REPO, commitfestEntryOf, commitfestRefs } from '../../../postgres/builds/commitfest.js';
import { readPatches } from '../../../postgres/builds/patches.js';
import { parseRepo } from '../../../postgres/builds/source.js';
import type { CommitfestEntry } from '../../../core/results/result-types.js';
import { OptionError, type OptionNames } from './option-error.js';
import type { ArmSource } from '../pipeline/pipeline.js';

/** The options the arms' checks may name. */
export type ArmOption =
  | 'arms'
  | 'settings'
  | 'repo'
  | 'commitfest'
  | 'base'
  | 'head'
  | 'basePatches'
  | 'headPatches'
  | 'mergeBase'
  | 'baseline';

export type ArmNames = OptionNames<ArmOption>;

/** A postgresql.conf setting for one arm only. */
export interface ArmSetting {
  arm: string;
  name: string;
  value: string;
}

/** The arms as an adapter reads them, unchecked: installs, or what to build. */
export interface ArmOptions {
  /** Installs given as bin dirs, the first the baseline. */
  installed?: Array<{ label: string; binDir: string }>;
  /** Settings for one installed arm each. */
  settings?: ArmSetting[];
  /** The repository to build from, a URL or a local path (default `defaultRepo`; cfbot's with an entry). */
  repo?: string;
  defaultRepo: string;
  /** The directory a local repository path is relative to. */
  cwd: string;
  /** The base ref to build; with a commitfest entry, the branch its merge-base is taken with. */
  base?: string;
  /** The head ref to build (default: base, when head patches are given). */
  head?: string;
  /** A commitfest entry as head (its id as given, or read already): its cfbot branch, against its merge-base. */
  commitfest?: string | CommitfestEntry;
  /** Patch files applied to base and to head, in order. */
  basePatches?: string[];
  headPatches?: string[];
  /** Build the merge-base of base and head as the baseline. */
  mergeBase?: boolean;
  /** Extra build options for both arms. */
  buildOptions?: string[];
  /** The build cache, resolved and checked only when something is built. */
  cacheDir: () => Promise<string>;
}

/**
 * The arms: the installs (with their settings), or base and head to build from source.
 * @throws OptionError (or UserError) naming the options at fault as `names` spells them.
 */
export async function armSourceOf(options: ArmOptions, names: ArmNames): Promise<ArmSource> {
  if (wantsBuild(options)) {
    if (options.settings?.length) {
      throw new OptionError(
        'settings',
        `${names.settings} applies to ${names.arms} arms; with ${names.base}/${names.head} both arms share one configuration`,
      );
    }
    return { kind: 'build', request: await buildRequestOf(options, names) };
  }
  const arms = options.installed ?? [];
  if (arms.length === 1) {
    throw new OptionError(
      'arms',
      `${names.arms} given once: a comparison needs two or more arms (e.g. ${names.arms} base=/usr/lib/postgresql/15/bin ${names.arms} head=/opt/pg/bin)`,
    );
  }
  if (arms.length === 0) {
    throw new OptionError(
      'arms',
      `nothing to run: give the arms as ${names.arms} LABEL=BINDIR (two or more), or build them with ${names.base} REF ${names.head} REF [${names.repo} URL|PATH]`,
    );
  }
  return { kind: 'installed', arms: armsWithSettings(arms, options.settings ?? [], names) };
}

/** A stored baseline: one installed arm, head; base comes from the store. */
export function storedBaselineArmSource(options: ArmOptions, names: ArmNames): ArmSource {
  if (wantsBuild(options)) {
    throw new OptionError(
      'baseline',
      `${names.baseline} stored compares an installed head: give ${names.arms} head=BINDIR, not ${names.base}/${names.head}`,
    );
  }
  const arms = options.installed ?? [];
  if (arms.length !== 1) {
    throw new OptionError(
      'arms',
      `${names.baseline} stored measures head only: give exactly one ${names.arms} LABEL=BINDIR (got ${arms.length})`,
    );
  }
  return { kind: 'installed', arms: armsWithSettings(arms, options.settings ?? [], names) };
}

/** Anything to build from source was given. */
function wantsBuild(o: ArmOptions): boolean {
  return Boolean(
    o.base ??
    o.head ??
    (o.commitfest || o.repo || o.headPatches?.length || o.basePatches?.length || o.mergeBase),
  );
}

/** The refs to build, checked: base, and head (or base again when only head patches differ). */
export function buildArmRefs(
  options: ArmOptions,
  names: ArmNames,
): {
  base: string;
  head: string;
  /** Set with a commitfest entry: the base is the merge-base, and the entry is recorded. */
  commitfest?: CommitfestEntry;
} {
  if (options.installed?.length) {
    throw new OptionError(
      'arms',
      `${names.arms} and ${names.base}/${names.head} both given: compare either installed bin dirs (${names.arms}) or builds from source (${names.base}/${names.head})`,
    );
  }
  if (options.commitfest !== undefined) return commitfestArmRefs(options, options.commitfest, names);
  const { base } = options;
  if (!base) {
    throw new OptionError(
      'base',
      `${names.base} REF is required to build the arms from source (with ${names.head} REF and/or ${names.headPatches} FILE)`,
    );
  }
  const head = options.head ?? (options.headPatches?.length ? base : undefined);
  if (!head) {
    throw new OptionError(
      'head',
      `${names.base} ${base}: give ${names.head} REF, or ${names.headPatches} FILE to compare ${base} with itself plus patches`,
    );
  }
  if (options.mergeBase && head === base) {
    throw new OptionError(
      'mergeBase',
      `${names.mergeBase} needs a ${names.head} that differs from ${names.base}`,
    );
  }
  return { base, head };
}

/** A commitfest entry: head its branch cf/<id>, base its merge-base with `base` (default master). */
function commitfestArmRefs(options: ArmOptions, given: string | CommitfestEntry, names: ArmNames) {
  const id = typeof given === 'string' ? given : String(given.id);
  if (options.head !== undefined) {
    throw new OptionError(
      'head',
      `${names.commitfest} ${id} and ${names.head} ${options.head} both given: with ${names.commitfest}, head is the entry's branch cf/${id}`,
    );
  }
  const entry = typeof given === 'string' ? commitfestEntryOf(given, names.commitfest) : given;
  const refs = commitfestRefs(entry, options.base);
  return { base: refs.baseRef, head: refs.headRef, commitfest: refs.entry };
}

/** What to build: base, then head (sharing ccache), as the arms "base" and "head". */
async function buildRequestOf(options: ArmOptions, names: ArmNames): Promise<ComparisonRequest> {
  const refs = buildArmRefs(options, names);
  return {
    repo: parseRepo(options.repo ?? (refs.commitfest ? CFBOT_REPO : options.defaultRepo), options.cwd),
    baseRef: refs.base,
    headRef: refs.head,
    mergeBase: Boolean(options.mergeBase) || refs.commitfest !== undefined,
    basePatches: await readPatches(options.basePatches ?? [], names.basePatches),
    headPatches: await readPatches(options.headPatches ?? [], names.headPatches),
    extraOptions: options.buildOptions ?? [],
    cacheDir: await options.cacheDir(),
  };
}

/** The installed arms, each with its own settings; a setting for no arm is refused. */
export function armsWithSettings<A extends { label: string; binDir: string }>(
  arms: A[],
  settings: ArmSetting[],
  names: Pick<ArmNames, 'settings'>,
) {
  // Each arm's settings gathered in one pass (as many flags as a command line holds, never arms x settings).
  const byArm = new Map<string, Array<[string, string]>>(arms.map((a) => [a.label, []]));
  for (const s of settings) {
    const own = byArm.get(s.arm);
    if (!own) {
      throw new OptionError(
        'settings',
        `${names.settings} ${s.arm}:${s.name}=${s.value}: no arm is labelled "${s.arm}" (arms: ${arms.map((a) => a.label).join(', ')})`,
      );
    }
    own.push([s.name, s.value]);
  }
  return arms.map((a) => ({ ...a, settings: Object.fromEntries(byArm.get(a.label) ?? []) }));
}
