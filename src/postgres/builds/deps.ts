/**
 * Build dependencies: which programs and libraries a build needs, which Debian package provides each,
 * and what a configure log's complaint about a missing one means. Checked before configuring so that
 * the error names the package to install instead of showing a page of meson or configure output.
 */
import { findOnPath } from '../../machine/os/find-on-path.js';
import { UserError } from '../../core/util/errors.js';
import { probeOptions, type ProcessRunner } from '../../machine/os/process.js';
import type { BuildSystem } from './build-options.js';

/** Program -> Debian package. */
export const TOOL_PACKAGES: Readonly<Record<string, string>> = {
  git: 'git',
  gcc: 'gcc',
  cc: 'gcc',
  make: 'make',
  meson: 'meson',
  ninja: 'ninja-build',
  bison: 'bison',
  flex: 'flex',
  perl: 'perl',
  'pkg-config': 'pkg-config',
  ccache: 'ccache',
};

/** Libraries the pinned options enable (build-options.ts), by pkg-config name -> Debian package. */
export const LIBRARY_PACKAGES: Readonly<Record<string, string>> = {
  readline: 'libreadline-dev',
  zlib: 'zlib1g-dev',
  'icu-uc': 'libicu-dev',
  'icu-i18n': 'libicu-dev',
};

/** Programs every build of this build system runs. */
export function requiredTools(system: BuildSystem): string[] {
  const common = ['git', 'bison', 'flex', 'perl', 'pkg-config'];
  return system === 'meson' ? [...common, 'meson', 'ninja'] : [...common, 'make'];
}

export interface MissingDependency {
  /** Program or pkg-config library name. */
  name: string;
  kind: 'program' | 'library';
  package: string;
}

/** The error for missing dependencies: what is missing, and the one apt-get line that installs it all. */
export function missingDependencyError(missing: readonly MissingDependency[], what: string): UserError {
  const list = missing.map((m) => `${m.kind} ${m.name} (Debian package ${m.package})`).join(', ');
  const packages = [...new Set(missing.map((m) => m.package))].join(' ');
  return new UserError(
    `${what}: missing build dependencies: ${list}. Install them with: apt-get install ${packages} ` +
      '(or run scripts/setup.sh)',
  );
}

/** Programs and libraries that are missing, for a build with this build system. */
export async function findMissingDependencies(
  system: BuildSystem,
  env: NodeJS.ProcessEnv,
  runner: ProcessRunner,
  signal?: AbortSignal,
): Promise<MissingDependency[]> {
  const missing: MissingDependency[] = [];
  for (const tool of requiredTools(system)) {
    if (!(await findOnPath(tool, env.PATH))) {
      missing.push({ name: tool, kind: 'program', package: TOOL_PACKAGES[tool]! });
    }
  }
  if (missing.some((m) => m.name === 'pkg-config')) return missing; // cannot ask it about libraries
  for (const [lib, pkg] of Object.entries(LIBRARY_PACKAGES)) {
    const res = await runner.run('pkg-config', ['--exists', lib], probeOptions(signal, { env }));
    signal?.throwIfAborted();
    if (res.exitCode !== 0 && !missing.some((m) => m.package === pkg)) {
      missing.push({ name: lib, kind: 'library', package: pkg });
    }
  }
  return missing;
}

/**
 * What a failed configure step's output says is missing, as Debian packages (meson and configure
 * wordings), or [] when the failure is something else.
 */
export function packagesMissingFromLog(log: string): string[] {
  const found = new Set<string>();
  const patterns: Array<[RegExp, (m: RegExpMatchArray) => string | undefined]> = [
    [/Program '([^']+)' not found/g, (m) => TOOL_PACKAGES[m[1]!]],
    [/Dependency "([^"]+)" not found/g, (m) => LIBRARY_PACKAGES[m[1]!]],
    [/Package '([^']+)',? .*not found/g, (m) => LIBRARY_PACKAGES[m[1]!]],
    [/readline library not found/g, () => 'libreadline-dev'],
    [/zlib library not found/g, () => 'zlib1g-dev'],
    [/ICU library not found|icu-uc.*not found/g, () => 'libicu-dev'],
    [
      /`?(bison|flex)'? is missing on your system|\b(bison|flex): (?:command )?not found/g,
      (m) => m[1] ?? m[2],
    ],
    [/no acceptable C compiler found/g, () => 'gcc'],
  ];
  for (const [re, pkg] of patterns) {
    for (const m of log.matchAll(re)) {
      const p = pkg(m);
      if (p) found.add(p);
    }
  }
  return [...found];
}
