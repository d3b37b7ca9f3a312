/**
 * `pgperf attribute` bad input: flags refused while parsed, workloads that cannot be counted, and ranges
 * that are not there or point the wrong way (in a small local repository: git only, nothing is built).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain as cli } from '../../helpers/main-in-process.js';

const root = new URL('../../../', import.meta.url).pathname;
let dir: string;
let repo: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'attribute-cli-'));
  repo = path.join(dir, 'repo');
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repo, ...args], {
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@example.com',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@example.com',
      },
    });
  execFileSync('git', ['init', '-q', '-b', 'master', repo]);
  for (const n of [1, 2, 3]) {
    await writeFile(path.join(repo, 'file'), `${n}\n`);
    git('add', 'file');
    git('commit', '-q', '-m', `commit ${n}`);
    git('tag', `t${n}`);
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const base = (...args: string[]) => [
  'attribute',
  '--repo',
  repo,
  '--cache-dir',
  path.join(dir, 'cache'),
  '--out',
  path.join(dir, 'out'),
  ...args,
];

describe('pgperf attribute bad input', () => {
  it.each([
    [
      ['--from', 't1', '--to', 't3', '--max-commits', '1'],
      "--max-commits must be a whole number from 2 to 1000, got '1'",
    ],
    [
      ['--from', 't1', '--to', 't3', '--max-commits', '1001'],
      "--max-commits must be a whole number from 2 to 1000, got '1001'",
    ],
    [
      ['--from', 't1', '--to', 't3', '--floor', '0'],
      "--floor must be a percentage above 0 and at most 100 (such as 0.5), got '0'",
    ],
    [
      ['--from', 't1', '--to', 't3', '--workload', path.join(root, 'workloads/sysbench-smoke.yml')],
      '--workload sysbench-smoke: its instructions cannot be counted (tool sysbench runs for a time, not a fixed number of transactions)',
    ],
    [
      ['--from', 't1', '--to', 't3', '--workload', path.join(root, 'workloads/select-only-pipelined.yml')],
      /--workload select-only-pipelined\S*: its instructions cannot be counted \(pipeline\)/,
    ],
    [['--to', 't3'], /--from/],
  ] as Array<[string[], string | RegExp]>)('%j', async (args, message) => {
    const ran = await cli(base(...args));
    expect(ran.code).toBe(2);
    if (typeof message === 'string') expect(ran.stderr).toContain(message);
    else expect(ran.stderr).toMatch(message);
  });

  it('names a --from that is not in the repository', async () => {
    const ran = await cli(base('--from', 'no-such-tag', '--to', 't3'));
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("--from: unknown ref 'no-such-tag' in");
    const to = await cli(base('--from', 't1', '--to', 'no-such-branch'));
    expect(to.stderr).toContain("--to: unknown ref 'no-such-branch' in");
    expect(ran.stderr).not.toMatch(/\n\s+at .*:\d+:\d+/);
  });

  it('refuses a range the wrong way round, and ends that are the same commit', async () => {
    const reversed = await cli(base('--from', 't3', '--to', 't1'));
    expect(reversed.code).toBe(2);
    expect(reversed.stderr).toMatch(
      /--from t3 \(\w{7}\) is not an ancestor of --to t1 \(\w{7}\) \(it is the other way round: --to is an ancestor of --from; swap them\?\): an attribution needs --from in the history of --to/,
    );
    const same = await cli(base('--from', 't2', '--to', 't2'));
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(
      /--from t2 and --to t2 are the same commit \(\w{7}\): give a --from older than --to/,
    );
  });
});
