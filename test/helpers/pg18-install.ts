/**
 * PostgreSQL 18 built from the base commit of the build tests' cached source repository (made from Debian's
 * 18 source tarball; testkit/pg-source.ts), with pgperf's pinned release options and no patches: the same
 * request as the base of instructions.int.test.ts and the 18 of settings-audit.int.test.ts, so one install
 * in the test cache (a few minutes cold, then found there).
 */
import path from 'node:path';
import { buildPostgres } from '../../src/postgres/builds/build.js';
import { parseRepo } from '../../src/postgres/builds/source.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { preparePgSourceRepo, testCacheDir } from '../../testkit/pg-source.js';

/** How long building it cold may take (call it from a beforeAll with this timeout). */
export const PG18_BUILD_TIMEOUT_MS = 40 * 60_000;

/** The bin dir of that install, built when the test cache does not hold it yet. */
export async function pg18BaseBinDir(): Promise<string> {
  const cacheDir = testCacheDir();
  const pg18 = await preparePgSourceRepo({ major: 18, dir: path.join(cacheDir, 'repos', 'pg18') });
  const repo = parseRepo(pg18.dir, process.cwd());
  const request = { label: 'base', repo, ref: pg18.baseRef, patches: [], extraOptions: [], cacheDir };
  const deps = { runner: nodeProcessRunner, logger: memoryLogger() };
  return (await buildPostgres(request, deps)).binDir;
}
