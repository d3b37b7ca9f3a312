/** A fresh fake GitHub API for each test of a file, and the octokit client the code under test talks to it with. */
import { afterEach, beforeEach } from 'vitest';
import type { GitHubApi } from '../../src/github/api.js';
import { octokitApi } from '../../src/github/octokit-api.js';
import type { BisectTarget } from '../../src/core/history/bisect-marker.js';
import { startFakeGitHub, type FakeGitHub } from './fake-github.js';

export interface FakeGitHubPerTest {
  /** The fake of the running test (started in beforeEach, closed in afterEach). */
  readonly gh: FakeGitHub;
  /** A real octokit client for pg/postgres against the fake, without retries. */
  api(): GitHubApi;
}

/** Registers beforeEach/afterEach hooks that start and close a fake GitHub API around every test. */
export function useFakeGitHub(): FakeGitHubPerTest {
  let current: FakeGitHub | undefined;
  beforeEach(async () => {
    current = await startFakeGitHub();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  const fake: FakeGitHubPerTest = {
    get gh(): FakeGitHub {
      if (!current) throw new Error('the fake GitHub API runs only inside a test');
      return current;
    },
    api: () =>
      octokitApi({ token: 't', baseUrl: fake.gh.url, owner: 'pg', repo: 'postgres', retry: { retries: 0 } }),
  };
  return fake;
}

/** A bisect target of a regressed series, as a regression issue's pgperf:bisect marker names it. */
export const BISECT_TARGET: BisectTarget = {
  series: 'fp/select-only@4/tps',
  workload: 'select-only',
  clients: 4,
  metric: 'tps',
  fingerprint: 'fp',
  good: 'a'.repeat(40),
  bad: 'b'.repeat(40),
};
