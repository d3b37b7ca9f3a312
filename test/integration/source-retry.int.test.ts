/**
 * A network remote that fails on the connection is tried again with a growing pause; a request the remote
 * refuses (an unknown ref) fails at once; a remote that stays down gives up after the attempts, naming it.
 * Real git against a real repository; the runner injects the connection failures a network would cause.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn } from '../helpers/git.js';
import { SourceMirror, type RepoSpec } from '../../src/postgres/builds/source.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner, type ProcessRunner } from '../../src/machine/os/process.js';

let tmp: string;
let repoDir: string;
let tip: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-source-retry-'));
  repoDir = path.join(tmp, 'repo');
  const git = gitIn(repoDir);
  execFileSync('git', ['init', '-q', '-b', 'master', repoDir]);
  await writeFile(path.join(repoDir, 'README'), 'x\n');
  git('add', 'README');
  git('commit', '-q', '-m', 'one');
  tip = git('rev-parse', 'HEAD');
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** Fails the first `failures` network git commands as an unreachable host would, then runs git for real. */
function flakyNetwork(failures: number): ProcessRunner & { networkCalls: number } {
  const runner = {
    networkCalls: 0,
    async run(command: string, args: string[], options?: Parameters<ProcessRunner['run']>[2]) {
      if (command === 'git' && (args.includes('ls-remote') || args.includes('fetch'))) {
        runner.networkCalls++;
        if (runner.networkCalls <= failures) {
          return {
            command: [command, ...args],
            exitCode: 128,
            signal: null,
            stdout: '',
            stderr:
              "fatal: unable to access 'https://git.example/pg.git/': Could not resolve host: git.example\n",
            durationMs: 1,
            timedOut: false,
          };
        }
      }
      return nodeProcessRunner.run(command, args, options);
    },
  };
  return runner;
}

function mirror(runner: ProcessRunner, logger = memoryLogger(), attempts = 4) {
  // A network remote as the user named it; git reaches it through a file URL.
  const repo: RepoSpec = { input: 'https://git.example/pg.git', url: `file://${repoDir}`, local: false };
  const m = new SourceMirror(repo, path.join(tmp, 'git'), path.join(tmp, 'locks'), {
    runner,
    logger,
    env: process.env,
    networkAttempts: attempts,
    networkBackoffMs: 10,
  });
  return { m, logger };
}

describe('git on a network remote', () => {
  it('retries connection failures with backoff, saying so, then resolves and fetches', async () => {
    const runner = flakyNetwork(2);
    const { m, logger } = mirror(runner);
    expect(await m.resolve('master')).toBe(tip);
    expect(runner.networkCalls).toBe(3);
    const retries = logger.lines.filter((l) => /trying again in/.test(l));
    expect(retries).toHaveLength(2);
    expect(retries[0]).toMatch(
      /git ls-remote from https:\/\/git\.example\/pg\.git failed .*Could not resolve host.*attempt 2 of 4/,
    );
    await m.ensureCommits([tip]);
    expect(await m.hasFile(tip, 'README')).toBe(true);
  });

  it('an unknown ref is refused at once, without retries', async () => {
    const runner = flakyNetwork(0);
    const { m } = mirror(runner);
    await expect(m.ensureCommits(['f'.repeat(40)])).rejects.toThrow(
      /unknown ref: fffffff is not a commit of https:\/\/git\.example\/pg\.git/,
    );
    expect(runner.networkCalls).toBe(1);
  });

  it('a remote that stays down gives up after the attempts, naming the repository', async () => {
    const runner = flakyNetwork(99);
    const { m } = mirror(runner, memoryLogger(), 3);
    await expect(m.resolve('master')).rejects.toThrow(
      /cannot reach repository https:\/\/git\.example\/pg\.git \(--repo\): git ls-remote failed/,
    );
    expect(runner.networkCalls).toBe(3);
  });
});
