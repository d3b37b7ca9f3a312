/**
 * The toolchain a build uses: the C compiler (recorded and part of the cache key), the OS and
 * architecture, and ccache, set up so that base and head builds in different directories share objects.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ProcessRunner } from '../util/process.js';
import { findOnPath } from '../util/find-on-path.js';
import { missingDependencyError, TOOL_PACKAGES } from './deps.js';

export interface Compiler {
  /** The command builds run, e.g. "gcc" (without ccache). */
  command: string;
  /** Its resolved path. */
  path: string;
  /** First line of `--version`, e.g. "gcc (Debian 12.2.0-14+deb12u1) 12.2.0". */
  version: string;
  /** Target triple (`-dumpmachine`), e.g. "x86_64-linux-gnu". */
  target: string;
}

export interface Platform {
  os: string;
  arch: string;
  /** Distribution and release from /etc/os-release, e.g. "debian 12" (libraries differ between them). */
  release: string;
}

export interface Toolchain {
  compiler: Compiler;
  platform: Platform;
  /** Path of ccache, when installed. */
  ccache?: string;
}

/** The compiler: `$CC` without a ccache wrapper, else gcc (PostgreSQL's configure prefers it too). */
export function compilerCommand(env: NodeJS.ProcessEnv): string {
  const words = (env.CC ?? '').trim().split(/\s+/).filter(Boolean);
  const withoutWrapper = words[0] && path.basename(words[0]) === 'ccache' ? words.slice(1) : words;
  return withoutWrapper.join(' ') || 'gcc';
}

export async function detectToolchain(env: NodeJS.ProcessEnv, runner: ProcessRunner): Promise<Toolchain> {
  const command = compilerCommand(env);
  const program = command.split(' ')[0]!;
  const resolved = program.includes('/') ? program : await findOnPath(program, env.PATH);
  const version = resolved ? await runner.run(resolved, ['--version'], { env }) : undefined;
  if (!resolved || version?.exitCode !== 0) {
    throw missingDependencyError(
      [{ name: program, kind: 'program', package: TOOL_PACKAGES[program] ?? 'gcc' }],
      'build',
    );
  }
  const target = await runner.run(resolved, ['-dumpmachine'], { env });
  const ccache = await findOnPath('ccache', env.PATH);
  return {
    compiler: {
      command,
      path: resolved,
      version: version.stdout.split('\n')[0]!.trim(),
      target: target.stdout.trim(),
    },
    platform: { os: os.platform(), arch: os.arch(), release: await osRelease() },
    ...(ccache ? { ccache } : {}),
  };
}

async function osRelease(): Promise<string> {
  try {
    return parseOsRelease(await readFile('/etc/os-release', 'utf8'));
  } catch {
    return `${os.type()} ${os.release()}`;
  }
}

/** "debian 12" from /etc/os-release text. */
export function parseOsRelease(text: string): string {
  const field = (name: string) =>
    new RegExp(`^${name}=(.*)$`, 'm').exec(text)?.[1]?.replace(/^"(.*)"$/, '$1') ?? '';
  return `${field('ID')} ${field('VERSION_ID')}`.trim() || 'unknown';
}

/**
 * ccache settings shared by every build under one cache directory. Sources sit at
 * `<builds>/<slot>/src`, so with CCACHE_BASEDIR=`<builds>` the compiler sees the same relative paths in
 * every build directory, and CCACHE_NOHASHDIR keeps the working directory out of the hash: base and
 * head share the objects of every file they have in common.
 */
export function ccacheEnv(input: { ccacheDir: string; buildsRoot: string }): Record<string, string> {
  return {
    CCACHE_DIR: input.ccacheDir,
    CCACHE_BASEDIR: input.buildsRoot,
    CCACHE_NOHASHDIR: 'true',
  };
}

export interface CcacheStats {
  hits: number;
  misses: number;
  /** hits / (hits + misses), 0 when nothing was compiled. */
  hitRate: number;
}

/** Counts a ccache stats log (CCACHE_STATSLOG: one counter name per line for every compilation). */
export function parseCcacheStatsLog(text: string): CcacheStats {
  let hits = 0;
  let misses = 0;
  for (const line of text.split('\n')) {
    const counter = line.trim();
    if (counter === 'direct_cache_hit' || counter === 'preprocessed_cache_hit') hits++;
    else if (counter === 'cache_miss') misses++;
  }
  const total = hits + misses;
  return { hits, misses, hitRate: total ? hits / total : 0 };
}
