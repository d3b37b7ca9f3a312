import { describe, expect, it } from 'vitest';
import {
  missingDependencyError,
  packagesMissingFromLog,
  requiredTools,
  TOOL_PACKAGES,
} from '../../src/postgres/builds/deps.js';
import { chooseStrategy, stepFailureMessage } from '../../src/postgres/builds/builder.js';
import { summaryLine, type BuildRecord } from '../../src/postgres/builds/build-record.js';
import {
  ccacheEnv,
  compilerCommand,
  parseCcacheStatsLog,
  parseOsRelease,
} from '../../src/postgres/builds/toolchain.js';

describe('build dependencies', () => {
  it('maps every required tool to its Debian package', () => {
    for (const tool of [...requiredTools('meson'), ...requiredTools('autoconf')]) {
      expect(TOOL_PACKAGES[tool]).toBeDefined();
    }
    expect(TOOL_PACKAGES.ninja).toBe('ninja-build');
    expect(requiredTools('meson')).toEqual(expect.arrayContaining(['meson', 'ninja', 'bison', 'flex']));
    expect(requiredTools('autoconf')).toEqual(expect.arrayContaining(['make', 'bison', 'flex']));
  });

  it('the error names what is missing and one apt-get line', () => {
    const e = missingDependencyError(
      [
        { name: 'bison', kind: 'program', package: 'bison' },
        { name: 'ninja', kind: 'program', package: 'ninja-build' },
        { name: 'icu-uc', kind: 'library', package: 'libicu-dev' },
      ],
      'build head',
    );
    expect(e.message).toBe(
      'build head: missing build dependencies: program bison (Debian package bison), program ninja (Debian package ninja-build), ' +
        'library icu-uc (Debian package libicu-dev). Install them with: apt-get install bison ninja-build libicu-dev (or run scripts/setup.sh)',
    );
  });

  it.each([
    // meson 1.0.1
    ['meson.build:1234:2: ERROR: Dependency "icu-uc" not found, tried pkgconfig', ['libicu-dev']],
    ["meson.build:359:2: ERROR: Program 'bison' not found or not executable", ['bison']],
    // configure (PostgreSQL 15)
    [
      'configure: error: readline library not found\nIf you have readline already installed, ...',
      ['libreadline-dev'],
    ],
    ['configure: error: zlib library not found', ['zlib1g-dev']],
    ["configure: error: Package 'icu-uc', required by 'virtual:world', not found", ['libicu-dev']],
    ["ERROR: `flex' is missing on your system.", ['flex']],
    ['configure: error: no acceptable C compiler found in $PATH', ['gcc']],
    ['gram.y:123: syntax error', []],
  ])('a configure log saying %j needs %j', (log, packages) => {
    expect(packagesMissingFromLog(log)).toEqual(packages);
  });
});

describe('build system', () => {
  const tree =
    (...files: string[]) =>
    async (f: string) =>
      files.includes(f);
  it('is meson where the tree has meson.build (16+, which also keeps configure), else configure', async () => {
    expect((await chooseStrategy(tree('meson.build', 'configure'), 'build x')).system).toBe('meson');
    expect((await chooseStrategy(tree('configure'), 'build x')).system).toBe('autoconf');
  });
  it('refuses a tree that is not PostgreSQL', async () => {
    await expect(chooseStrategy(tree('README'), 'build head')).rejects.toThrow(
      'build head: the tree has neither meson.build nor configure: not a PostgreSQL source tree',
    );
  });
});

describe('step failures', () => {
  it('name the step, the command, the fix when known, the tail and the full log', () => {
    const output =
      Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n') + "\nERROR: Program 'bison' not found";
    const message = stepFailureMessage({
      what: 'build head',
      step: 'configure',
      line: 'meson setup b s',
      res: 'exit code 1',
      output,
      logFile: '/c/logs/k.log',
    });
    expect(message).toMatch(/^build head: configure failed \(exit code 1\): meson setup b s\n/);
    expect(message).toContain('missing build dependencies: apt-get install bison');
    expect(message).toContain("line 40\nERROR: Program 'bison' not found\n--- full log: /c/logs/k.log");
    expect(message).not.toContain('line 10\n');
  });

  it('say when the disk is full', () => {
    const message = stepFailureMessage({
      what: 'build base',
      step: 'compile',
      line: 'ninja',
      res: 'exit code 1',
      output: 'fatal error: error writing to /tmp/cc.s: No space left on device',
      logFile: 'l',
    });
    expect(message).toContain('the disk is full');
  });
});

describe('toolchain', () => {
  it('the compiler is $CC without a ccache wrapper, else gcc', () => {
    expect(compilerCommand({})).toBe('gcc');
    expect(compilerCommand({ CC: 'clang' })).toBe('clang');
    expect(compilerCommand({ CC: 'ccache gcc-12' })).toBe('gcc-12');
    expect(compilerCommand({ CC: '/usr/bin/ccache cc' })).toBe('cc');
  });

  it('the OS release comes from /etc/os-release', () => {
    expect(parseOsRelease('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n')).toBe(
      'debian 12',
    );
  });

  it('ccache: a fixed cache dir, the builds root as base dir, the working directory kept out of the hash', () => {
    expect(ccacheEnv({ ccacheDir: '/c/ccache', buildsRoot: '/c/builds' })).toEqual({
      CCACHE_DIR: '/c/ccache',
      CCACHE_BASEDIR: '/c/builds',
      CCACHE_NOHASHDIR: 'true',
    });
  });

  it('counts hits and misses in a ccache stats log (ccache 4.7 format)', () => {
    const log = [
      '# ../src/src/backend/utils/adt/int.c',
      'cache_miss',
      'direct_cache_miss',
      'preprocessed_cache_miss',
      '# ../src/src/backend/utils/adt/float.c',
      'direct_cache_hit',
      'local_storage_hit',
      '# ../src/src/backend/utils/adt/numeric.c',
      'preprocessed_cache_hit',
      '# conftest.c',
      'called_for_link',
    ].join('\n');
    expect(parseCcacheStatsLog(log)).toEqual({ hits: 2, misses: 1, hitRate: 2 / 3 });
    expect(parseCcacheStatsLog('')).toEqual({ hits: 0, misses: 0, hitRate: 0 });
  });
});

describe('progress', () => {
  it('one line per build: phases with timings and the ccache hit rate', () => {
    const record = {
      sha: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
      buildSystem: 'meson',
      durationsS: { fetch: 3.24, configure: 12.4, compile: 61.2, install: 3 },
      ccache: { hits: 1598, misses: 2, hitRate: 0.99875 },
    } as BuildRecord;
    expect(summaryLine('head', record)).toBe(
      'build head (sha 1a2b3c4, meson): fetch 3.2 s, configure 12 s, compile 61 s, install 3.0 s; ccache 1598/1600 hits (99.9%)',
    );
  });
});
