/**
 * The toolchain a build uses: the C compiler (recorded and part of the cache key), the OS and
 * architecture, and ccache, set up so that base and head builds in different directories share objects.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { probeOptions, type ProcessRunner } from '../../machine/os/process.js';
import { findOnPath } from '../../machine/os/find-on-path.js';
import { missingDependencyError, TOOL_PACKAGES } from './deps.js';
import type { Compiler, Platform, CcacheStats } from '../../core/results/result-types.js';
export type { Compiler, Platform, CcacheStats };

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

export async function detectToolchain(
  env: NodeJS.ProcessEnv,
  runner: ProcessRunner,
  /** The build's stop signal: a compiler that never answers holds neither the build nor a Ctrl-C. */
  signal?: AbortSignal,
): Promise<Toolchain> {
  const command = compilerCommand(env);
  const program = command.split(' ')[0]!;
  const resolved = program.includes('/') ? program : await findOnPath(program, env.PATH);
  const version = resolved
    ? await runner.run(resolved, ['--version'], probeOptions(signal, { env }))
    : undefined;
  signal?.throwIfAborted();
  if (!resolved || version?.exitCode !== 0) {
    throw missingDependencyError(
      [{ name: program, kind: 'program', package: TOOL_PACKAGES[program] ?? 'gcc' }],
      'build',
    );
  }
  const target = await runner.run(resolved, ['-dumpmachine'], probeOptions(signal, { env }));
  signal?.throwIfAborted();
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
