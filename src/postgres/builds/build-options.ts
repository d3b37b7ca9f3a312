/**
 * Build options for benchmark builds: a release build (optimised, no assertions, no debug info) with
 * every optional feature pinned, so that two builds never differ because one machine happened to have
 * a library installed. Pure functions; the builders pass the result to meson or configure verbatim.
 */
import { UserError } from '../../core/util/errors.js';
import type { BuildSystem } from '../../core/results/result-types.js';
export type { BuildSystem };

/**
 * Bump when the pinned options below change: it is part of the install cache key, so installs built
 * with an older recipe are not reused.
 */
export const BUILD_RECIPE_VERSION = 1;

/**
 * Optimisation level for both build systems: -O2 is the autoconf default with gcc and what upstream's
 * meson default (debugoptimized) uses, so meson (16+) and autoconf (<= 15) builds compare like for like.
 */
const OPTIMIZATION = '2';

/** Features a benchmark build has, on for every version; everything else is off. */
const ENABLED_FEATURES = ['readline', 'zlib', 'icu'] as const;

/**
 * meson (PG 16+): everything the tree offers as a feature is disabled by `auto_features`, then the
 * wanted ones are enabled; combos that auto_features does not cover are set explicitly.
 */
const MESON_PINNED: ReadonlyArray<readonly [string, string]> = [
  ['libdir', 'lib'],
  ['optimization', OPTIMIZATION],
  ['debug', 'false'],
  ['cassert', 'false'],
  ['injection_points', 'false'],
  ['rpath', 'true'],
  ['auto_features', 'disabled'],
  ...ENABLED_FEATURES.map((f) => [f, 'enabled'] as const),
  ['ssl', 'none'],
  ['uuid', 'none'],
  ['libedit_preferred', 'false'],
];

/** meson's own options, valid for every project; the rest must appear in the tree's meson_options.txt. */
const MESON_BUILTIN = new Set(['prefix', 'libdir', 'optimization', 'debug', 'auto_features', 'buildtype']);

/**
 * configure (PG <= 15): its defaults are already explicit (no autodetection of optional libraries), but
 * they changed between versions (ICU is on by default from 16), so every one is spelled out. Options a
 * version does not know only make configure warn.
 */
const CONFIGURE_PINNED: readonly string[] = [
  '--disable-cassert',
  '--disable-debug',
  '--disable-nls',
  '--disable-tap-tests',
  '--disable-dtrace',
  '--disable-profiling',
  '--disable-coverage',
  '--disable-injection-points',
  ...ENABLED_FEATURES.map((f) => `--with-${f}`),
  '--without-openssl',
  '--without-gssapi',
  '--without-ldap',
  '--without-pam',
  '--without-bsd-auth',
  '--without-systemd',
  '--without-selinux',
  '--without-bonjour',
  '--without-llvm',
  '--without-lz4',
  '--without-zstd',
  '--without-libxml',
  '--without-libxslt',
  '--without-perl',
  '--without-python',
  '--without-tcl',
];

export interface OptionInput {
  /** Final install prefix (compiled into the binaries, and their rpath). */
  prefix: string;
  /** Options the user added (`--build-option`), after the pinned ones; they win. */
  extra: readonly string[];
}

/** `meson setup` arguments. `available` holds the option names of the tree's meson_options.txt. */
export function mesonOptions(input: OptionInput & { available: ReadonlySet<string> }): string[] {
  const user = new Map<string, string>();
  for (const opt of input.extra) {
    const m = /^-D([A-Za-z0-9_.:-]+)=(.*)$/.exec(opt);
    if (!m) {
      throw new UserError(
        `--build-option ${opt}: this tree builds with meson, which takes -DNAME=VALUE options (e.g. -Dc_args=-fno-omit-frame-pointer)`,
      );
    }
    const name = m[1]!;
    if (name === 'prefix') {
      throw new UserError(
        `--build-option ${opt}: the prefix is pgperf's to choose; use --prefix DIR instead`,
      );
    }
    if (!input.available.has(name) && !MESON_BUILTIN.has(name) && !isMesonBaseOption(name)) {
      throw new UserError(
        `--build-option ${opt}: this tree has no meson option "${name}" (see meson_options.txt or meson.options)`,
      );
    }
    user.set(name, m[2]!);
  }
  const pinned = MESON_PINNED.filter(
    ([name]) => (MESON_BUILTIN.has(name) || input.available.has(name)) && !user.has(name),
  );
  return [
    `--prefix=${input.prefix}`,
    ...pinned.map(([name, value]) => `-D${name}=${value}`),
    ...[...user].map(([name, value]) => `-D${name}=${value}`),
  ];
}

/** meson base and compiler options (b_lto, c_args, ...) exist for every C project. */
function isMesonBaseOption(name: string): boolean {
  return /^(b_|c_|backend_|buildtype$|warning_level$|werror$|strip$|default_library$)/.test(name);
}

/** `./configure` arguments; the user's come last (configure takes the last of conflicting flags). */
export function configureOptions(input: OptionInput): string[] {
  for (const opt of input.extra) {
    if (opt.startsWith('-D')) {
      throw new UserError(
        `--build-option ${opt}: this tree builds with ./configure (PostgreSQL 15 and older), which takes --with-X/--enable-X or VAR=VALUE options`,
      );
    }
    if (opt.startsWith('--prefix')) {
      throw new UserError(
        `--build-option ${opt}: the prefix is pgperf's to choose; use --prefix DIR instead`,
      );
    }
  }
  return [`--prefix=${input.prefix}`, ...CONFIGURE_PINNED, ...input.extra];
}

/** Option names declared in a meson_options.txt / meson.options file. */
export function parseMesonOptionNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^\s*option\(\s*'([^']+)'/gm)) names.add(m[1]!);
  return names;
}
