import path from 'node:path';
import { Command } from 'commander';
import { buildPostgres } from '../../../postgres/builds/build.js';
import { readPatches } from '../../../postgres/builds/patches.js';
import { DEFAULT_REPO, parseRepo } from '../../../postgres/builds/source.js';
import { consoleLogger } from '../../../core/util/logger.js';
import { nodeProcessRunner } from '../../../machine/os/process.js';
import { cacheDirHelp, checkedCacheDir } from '../cache-dir-option.js';
import { collectString } from '../flag-parsers.js';
import { withInterrupt } from '../stop-scope.js';
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
