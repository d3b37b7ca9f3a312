/**
 * Housekeeping of the cache's slots: a finished install found again (a cache hit), a --prefix checked
 * before it is replaced, and what killed builds left behind removed.
 */
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { describeWait, tryLock, type LockWait } from '../../machine/os/file-lock.js';
import { UserError } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import type { BuildRecord, BuildRequest, BuiltInstall } from './build-record.js';
import { COMPLETE_MARKER, readCompleted, type CacheLayout, type SlotPaths } from './cache.js';
import { short } from '../../core/util/commit-id.js';
import { type SourceMirror } from './source.js';

/**
 * A finished install of this key at the slot's path, as this request's record; else undefined. `waited`:
 * the wait for the slot's lock before it was found (another process was building it), said and recorded.
 */
export async function findCompleted(
  paths: SlotPaths,
  key: string,
  req: BuildRequest,
  started: number,
  logger: Logger,
  waited?: LockWait,
): Promise<BuiltInstall | undefined> {
  const stored = await readCompleted<BuildRecord>(paths.install, (m) => logger.warn(m));
  if (stored?.key !== key) return undefined;
  const tenths = (s: number) => Math.round(s * 10) / 10;
  const hitS = tenths((Date.now() - started) / 1000);
  const record: BuildRecord = {
    ...stored,
    // The same install may be reached through another ref or patch file name: record this request's.
    repo: req.repo.input,
    ref: req.ref,
    patches: req.patches.map((p) => ({ file: p.file, sha256: p.sha256 })),
    ...(req.baseChosenBy ? { baseChosenBy: req.baseChosenBy } : {}),
    cacheHit: true,
    hitS,
    ...(waited ? { lockWaitS: tenths(waited.seconds) } : {}),
  };
  if (!req.baseChosenBy) delete record.baseChosenBy;
  if (!waited) delete record.lockWaitS;
  const hit = `cache hit (sha ${short(stored.sha)}, ${stored.buildSystem})`;
  logger.info(
    waited
      ? `build ${req.label}: ${describeWait(waited)} to finish building the same install; then a ${hit}, ${hitS.toFixed(1)} s in all: ${paths.install}`
      : `build ${req.label}: ${hit} in ${hitS.toFixed(1)} s: ${paths.install}`,
  );
  return { installDir: paths.install, binDir: path.join(paths.install, 'bin'), record };
}

/** An existing --prefix must be empty or a pgperf install (which is then replaced). */
export async function checkPrefixUsable(dir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return; // does not exist: fine
  }
  if (entries.length && !entries.includes(COMPLETE_MARKER)) {
    throw new UserError(
      `--prefix ${dir}: the directory exists and is not a pgperf install; give a new or empty directory`,
    );
  }
}

/**
 * Removes what builds that were killed (kill -9, power loss) left behind: work directories, and installs
 * without a marker, of slots whose lock nobody alive holds.
 */
export async function sweepAbandoned(layout: CacheLayout, logger: Logger): Promise<void> {
  for (const slot of await readdir(layout.builds).catch(() => [] as string[])) {
    const release = await tryLock(path.join(layout.locks, `${slot}.lock`), logger);
    if (!release) continue; // a live build
    try {
      logger.debug(`removing the work directory of an abandoned build: ${path.join(layout.builds, slot)}`);
      await rm(path.join(layout.builds, slot), { recursive: true, force: true });
      const install = path.join(layout.installs, slot);
      if (!(await readCompleted(install))) await rm(install, { recursive: true, force: true });
    } finally {
      await release();
    }
  }
}

/**
 * Removes an unfinished install (no marker; a --prefix is replaced only once the new tree is in place) and
 * the work directory of an interrupted build.
 */
export async function removeUnfinished(
  paths: SlotPaths,
  ownPrefix: boolean,
  mirror: SourceMirror,
): Promise<void> {
  if (!ownPrefix) await rm(paths.install, { recursive: true, force: true });
  await mirror.removeCheckout(paths.src).catch(() => {});
  await rm(paths.work, { recursive: true, force: true });
}
