/** The build cache as the CLI's commands take it: --cache-dir, checked before anything is built. */
import os from 'node:os';
import path from 'node:path';
import { defaultCacheDir } from '../../postgres/builds/cache.js';
import { checkWritableDirectory } from '../../machine/os/writable-dir.js';

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
