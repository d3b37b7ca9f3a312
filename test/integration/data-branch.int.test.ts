/**
 * The directory store on a git data branch, against a local bare repository as the remote: a competing
 * job pushes between our fetch and our push; the rejected push is rebased and retried, and both runs land.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/results/types.js';
import { DataBranch } from '../../src/store/data-branch.js';
import { DirStore } from '../../src/store/dir-store.js';
import { memoryLogger } from '../../src/util/logger.js';
import { nodeProcessRunner, type ProcessRunner } from '../../src/util/process.js';
import { minutesAfter, readFixture } from './store-fixture.js';

let tmp: string;
let remote: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-data-branch-'));
  remote = path.join(tmp, 'remote.git');
  execFileSync('git', ['init', '-q', '--bare', remote]);
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const fixture = readFixture();
function runAt(minutes: number): RunResult {
  return { ...fixture, runId: undefined, startedAt: minutesAfter(minutes) };
}

/** Saves `run` into the branch's store and returns the commit message. */
function saver(run: RunResult) {
  return async (storeDir: string) => {
    const store = await DirStore.open(storeDir, { warn: () => {}, write: true });
    const saved = await store.save(run);
    await store.close();
    return `pgperf: run ${saved.id}`;
  };
}

async function idsOnRemote(branch: string): Promise<string[]> {
  const clone = path.join(tmp, `verify-${branch}-${Date.now()}`);
  execFileSync('git', ['clone', '-q', '--branch', branch, remote, clone]);
  const store = await DirStore.open(path.join(clone, 'store'), { warn: () => {} });
  const ids = (await store.list()).map((r) => r.id);
  await store.close();
  return ids.sort();
}

function open(name: string, branch: string, runner: ProcessRunner = nodeProcessRunner) {
  return DataBranch.checkout(
    { remote, branch, workDir: path.join(tmp, name), backoffMs: 1, sleep: async () => {} },
    { runner, logger: memoryLogger() },
  );
}

describe('DataBranch', () => {
  for (const startsEmpty of [true, false]) {
    it(`a push rejected because another job pushed first is rebased and retried; both runs land (${startsEmpty ? 'new branch' : 'existing branch'})`, async () => {
      const branch = startsEmpty ? 'data-new' : 'data-old';
      const seeded: string[] = [];
      if (!startsEmpty) {
        const seed = await open(`seed-${branch}`, branch);
        await seed.publish(saver(runAt(1)));
        await seed.close();
        seeded.push(...(await idsOnRemote(branch)));
      }
      const competing = runAt(20);
      const ours = runAt(30);
      let competed = false;
      // The competing job pushes right before our first push: between our fetch and our push.
      const racing: ProcessRunner = {
        run: async (command, args, options) => {
          if (!competed && args.includes('push')) {
            competed = true;
            const other = await open(`other-${branch}`, branch);
            const theirs = await other.publish(saver(competing));
            expect(theirs.attempts).toBe(1);
            await other.close();
          }
          return nodeProcessRunner.run(command, args, options);
        },
      };
      const mine = await open(`mine-${branch}`, branch, racing);
      const published = await mine.publish(saver(ours));
      await mine.close();
      expect(competed).toBe(true);
      expect(published.attempts).toBe(2);
      const ids = await idsOnRemote(branch);
      expect(ids).toHaveLength(seeded.length + 2);
      for (const id of seeded) expect(ids).toContain(id);
      const head = execFileSync('git', ['--git-dir', remote, 'rev-parse', `refs/heads/${branch}`])
        .toString()
        .trim();
      expect(head).toBe(published.commit);
      // One file per run: the history is linear (no force push), each commit adds its run.
      const log = execFileSync('git', ['--git-dir', remote, 'log', '--format=%s', branch])
        .toString()
        .trim()
        .split('\n');
      expect(log).toHaveLength(seeded.length + 2);
    }, 60_000);
  }

  it('gives up after maxAttempts rejections with the run kept locally, and names the branch', async () => {
    const branch = 'data-busy';
    let pushes = 0;
    const alwaysFirst: ProcessRunner = {
      run: async (command, args, options) => {
        if (args.includes('push')) {
          pushes++;
          const other = await open(`busy-${pushes}`, branch);
          await other.publish(saver(runAt(100 + pushes)));
          await other.close();
        }
        return nodeProcessRunner.run(command, args, options);
      },
    };
    const mine = await DataBranch.checkout(
      {
        remote,
        branch,
        workDir: path.join(tmp, 'busy-mine'),
        maxAttempts: 3,
        backoffMs: 1,
        sleep: async () => {},
      },
      { runner: alwaysFirst, logger: memoryLogger() },
    );
    await expect(mine.publish(saver(runAt(200)))).rejects.toThrow(
      /store-branch data-busy: the push .* was rejected 3 times/,
    );
    expect(pushes).toBe(3);
    await mine.close();
  }, 60_000);

  it('publishes another directory of the branch (the site); a conflicting push re-renders it on top of theirs', async () => {
    const branch = 'data-site';
    const seed = await open('site-seed', branch);
    await seed.publish(saver(runAt(300)));
    await seed.close();
    /** Writes docs/index.html naming who rendered it and how often; the store is left alone. */
    const renderer = (b: DataBranch, who: string, calls: { n: number }) => async () => {
      calls.n++;
      await mkdir(b.pathOf('docs'), { recursive: true });
      await writeFile(path.join(b.pathOf('docs'), 'index.html'), `${who} ${calls.n}`);
      return `site by ${who}`;
    };
    let competed = false;
    const racing: ProcessRunner = {
      run: async (command, args, options) => {
        if (!competed && args.includes('push')) {
          competed = true;
          const other = await open('site-other', branch);
          await other.publish(renderer(other, 'theirs', { n: 0 }), ['docs']);
          await other.close();
        }
        return nodeProcessRunner.run(command, args, options);
      },
    };
    const mine = await open('site-mine', branch, racing);
    const calls = { n: 0 };
    const published = await mine.publish(renderer(mine, 'ours', calls), ['docs']);
    await mine.close();
    expect(published.attempts).toBe(2);
    expect(calls.n).toBe(2);
    const show = (spec: string) => execFileSync('git', ['--git-dir', remote, 'show', spec]).toString();
    expect(show(`${branch}:docs/index.html`)).toBe('ours 2');
    const log = execFileSync('git', ['--git-dir', remote, 'log', '--format=%s', branch])
      .toString()
      .trim()
      .split('\n');
    expect(log).toEqual(['site by ours', 'site by theirs', expect.stringMatching(/^pgperf: run /)]);
    // Only the directory asked for is committed: the store still holds the one seeded run.
    expect(await idsOnRemote(branch)).toHaveLength(1);
  }, 60_000);

  it('refuses a bad branch name, naming it', async () => {
    await expect(open('bad', '-x..y')).rejects.toThrow(/store-branch '-x\.\.y' is not a valid branch name/);
  });
});
