/**
 * The build request of a nightly that measures `master` of a test repository alone (head only, no patch,
 * its own cache directory): what the backfill tests hand the nightly and the backfill loop.
 */
import path from 'node:path';
import { parseRepo } from '../../src/postgres/builds/source.js';

export function masterBuild(repo: string, dir: string, cacheName: string) {
  return {
    repo: parseRepo(repo, dir),
    baseRef: 'master',
    headRef: 'master',
    mergeBase: false,
    basePatches: [],
    headPatches: [],
    extraOptions: [],
    cacheDir: path.join(dir, cacheName),
    headOnly: true,
  };
}
