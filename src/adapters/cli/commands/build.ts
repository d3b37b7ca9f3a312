import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { buildPostgres } from '../../../postgres/builds/build.js';
import { defaultCacheDir } from '../../../postgres/builds/cache.js';
import { readPatches } from '../../../postgres/builds/patches.js';
import { DEFAULT_REPO, parseRepo } from '../../../postgres/builds/source.js';
import { errorMessage } from '../../../core/util/errors.js';
import { consoleLogger, type Logger } from '../../../core/util/logger.js';
import { nodeProcessRunner } from '../../../machine/os/process.js';
import { checkWritableDirectory } from '../../../machine/os/writable-dir.js';
import {
  InterruptedError,
  installSignalHandlers,
  signalExitCode,
  type StopSignal,
} from '../../../machine/os/signals.js';
import { refArg } from '../flag-parsers.js';

interface BuildFlags {
  repo: string;
  ref: string;
  patch: string[];
  prefix?: string;
  cacheDir?: string;
  buildOption: string[];
  json: boolean;
  verbose: boolean;
}

/**
 * `pgperf build --repo URL|PATH --ref REF [--patch FILE...] [--prefix DIR]`: builds PostgreSQL from a
 * commit plus patches (a release build with pinned features, cached by commit, patches, options and
 * compiler) and prints the install path on stdout; progress goes to stderr.
 */
export function buildCommand(): Command {
  return new Command('build')
    .description('build PostgreSQL from a commit (plus patches) into a cached install and print its path')
    .option('--repo <url|path>', 'git URL or local repository', DEFAULT_REPO)
    .requiredOption('--ref <ref>', 'branch, tag or commit sha to build', refArg('--ref'))
    .option(
      '--patch <file...>',
      'patches applied in order (git am for mail-format series, git apply otherwise)',
      [],
    )
    .option('--prefix <dir>', 'install into this directory instead of the cache')
    .option('--cache-dir <dir>', cacheDirHelp())
    .option(
      '--build-option <option>',
      'extra build option after the pinned release ones: -DNAME=VALUE (meson, 16+) or --with-X (configure) (repeatable)',
      collectString,
      [],
    )
    .option('--json', 'print the build record as JSON instead of the install path', false)
    .option('-v, --verbose', 'debug output', false)
    .action(async (flags: BuildFlags) => {
      const logger = consoleLogger({ verbose: flags.verbose });
      const patches = await readPatches(flags.patch, '--patch');
      const cacheDir = await checkedCacheDir(flags.cacheDir);
      const built = await withInterrupt(logger, (signal) =>
        buildPostgres(
          {
            label: /^[0-9a-f]{40}$/i.test(flags.ref) ? flags.ref.slice(0, 7) : flags.ref,
            repo: parseRepo(flags.repo, process.cwd()),
            ref: flags.ref,
            patches,
            extraOptions: flags.buildOption,
            cacheDir,
            ...(flags.prefix ? { prefix: path.resolve(flags.prefix) } : {}),
          },
          { runner: nodeProcessRunner, logger, signal },
        ),
      );
      process.stdout.write(
        flags.json ? `${JSON.stringify(built.record, null, 2)}\n` : `${built.installDir}\n`,
      );
    });
}

/** --cache-dir, else $PGPERF_CACHE_DIR, else /var/cache/pgperf as root, else ~/.cache/pgperf. */
export function resolveCacheDir(flag: string | undefined): string {
  return flag ? path.resolve(flag) : defaultCacheDir(process.env, process.getuid?.(), os.homedir());
}

/**
 * The build cache (resolveCacheDir), created and proven writable before anything is built: a cache that
 * cannot hold files is refused naming where it came from (--cache-dir, $PGPERF_CACHE_DIR or the default).
 */
export async function checkedCacheDir(flag: string | undefined): Promise<string> {
  const dir = resolveCacheDir(flag);
  await checkWritableDirectory(dir, {
    what: flag
      ? '--cache-dir'
      : process.env.PGPERF_CACHE_DIR
        ? 'the build cache ($PGPERF_CACHE_DIR)'
        : 'the build cache (default; --cache-dir to choose another)',
    expected: 'a directory for the build cache (created if missing)',
    public: true,
  });
  return dir;
}

export function cacheDirHelp(): string {
  return 'build cache: mirrors, installs, ccache (default: $PGPERF_CACHE_DIR, /var/cache/pgperf as root, else ~/.cache/pgperf)';
}

export function collectString(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * Runs a build with Ctrl-C handling: the first signal kills the running step and cleans up (the lock
 * is released, nothing half-built is kept); a second one exits at once.
 */
export async function withInterrupt<T>(
  logger: Logger,
  fn: (signal: AbortSignal) => Promise<T>,
  /** Told which signal stopped `fn`, for a caller whose flow keeps what it measured and returns. */
  stopped: { by?: StopSignal } = {},
): Promise<T> {
  const controller = new AbortController();
  let stoppedBy: StopSignal | undefined;
  const dispose = installSignalHandlers({
    logger,
    onFirst: (signal) => {
      stoppedBy = signal;
      stopped.by = signal;
      controller.abort(new Error(`build interrupted by ${signal}`));
    },
  });
  try {
    return await fn(controller.signal);
  } catch (e) {
    if (!controller.signal.aborted) throw e;
    process.exitCode = signalExitCode(stoppedBy ?? 'SIGINT');
    throw new InterruptedError(
      `interrupted (${errorMessage(e).split('\n')[0]}): nothing half-built was kept`,
      process.exitCode,
    );
  } finally {
    dispose();
  }
}
