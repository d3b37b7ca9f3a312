/**
 * A nightly regression issue whose change point spans several commits is attributed before it is bisected:
 * when the counts name commits, they are commented on the issue and no bisection runs; a range of one
 * commit, a workload that cannot be counted, or counts that did not move leave it to the bisection.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { attributeIssueRange } from '../../../src/flows/attribute/issue-attribution.js';
import type { AutoBisectorOptions } from '../../../src/flows/bisect/auto-bisection.js';
import type { GitHubApi } from '../../../src/github/api.js';
import { parseWorkload } from '../../../src/drivers/load-workload.js';
import type { Workload } from '../../../src/drivers/workload.js';
import { memoryLogger } from '../../../src/core/util/logger.js';
import { attributionFakes, selWorkload, sha } from '../../helpers/attribution-fakes.js';

let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-issue-attribution-'));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

function options(workload: Workload): AutoBisectorOptions {
  return {
    analysis: {},
    measure: {
      repo: { input: '/repo', url: 'file:///repo', local: true, path: '/repo' },
      cacheDir: path.join(tmp, 'cache'),
      extraOptions: [],
      outDir: tmp,
    },
    links: { repoUrl: 'https://github.com/pg/postgres' },
    workloads: { given: [`${workload.name}.yml`], load: async () => [workload], fileOf: () => '' },
  };
}

const request = (n: number, workload = 'sel') => ({
  issue: 12,
  target: {
    series: 's1',
    workload,
    clients: 1,
    metric: 'tps' as const,
    fingerprint: 'f',
    good: sha(0),
    bad: sha(n),
  },
});

function fakeApi() {
  const comments: Array<{ issue: number; body: string }> = [];
  const api = {
    createComment: async (issue: number, body: string) => {
      comments.push({ issue, body });
      return { id: 99 };
    },
  } as unknown as GitHubApi;
  return { api, comments };
}

describe("a regression issue's range", () => {
  it('of several commits whose counts moved: attributed, commented on the issue, no bisection', async () => {
    const fakes = attributionFakes(6, { 4: 900 });
    const { api, comments } = fakeApi();
    const said = await attributeIssueRange(request(6), options(selWorkload), { ...fakes.deps, api });
    expect(said).toMatch(
      /^attributed: 1 commit\(s\) moved the instructions per transaction: 0004aaaaaa "add work 900"$/,
    );
    expect(comments).toHaveLength(1);
    expect(comments[0]!.issue).toBe(12);
    expect(comments[0]!.body).toContain('pgperf attribute');
    expect(comments[0]!.body).toContain('0004aaa');
  });

  it('whose counts did not move: left to the bisection, nothing commented', async () => {
    const fakes = attributionFakes(6, {});
    const { api, comments } = fakeApi();
    const logger = memoryLogger();
    const deps = { ...fakes.deps, api, logger };
    expect(await attributeIssueRange(request(6), options(selWorkload), deps)).toBeUndefined();
    expect(comments).toEqual([]);
    expect(logger.lines.join('\n')).toMatch(
      /issue #12: the attribution named no commit .*bisecting its timings/,
    );
  });

  it('of one commit, or of a workload that cannot be counted: left to the bisection, nothing counted', async () => {
    const one = attributionFakes(1, { 1: 900 });
    expect(await attributeIssueRange(request(1), options(selWorkload), one.deps)).toBeUndefined();
    expect(one.counted).toEqual([]);
    const sysbench = parseWorkload(
      'name: oltp\ntool: sysbench\nscript: oltp_read_only\nclients: [1]\nduration: 1\n',
      'oltp.yml',
    );
    const fakes = attributionFakes(6, { 4: 900 });
    expect(await attributeIssueRange(request(6, 'oltp'), options(sysbench), fakes.deps)).toBeUndefined();
    expect(fakes.counted).toEqual([]);
  });
});
