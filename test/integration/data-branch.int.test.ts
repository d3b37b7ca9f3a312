/**
 * The directory store on a git data branch, against a local bare repository as the remote: a competing
 * job pushes between our fetch and our push; the rejected push is rebased and retried, and both runs land.
 * Over HTTP (git http-backend on 127.0.0.1, answering only with the right basic credentials): git is
 * authenticated through its environment only, and no file holds the token after a success, a failure or a
 * cancel; the work tree is removed on every path.
 */
import { execFileSync } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/core/results/result-types.js';
import {
  DataBranch,
  basicAuthorization,
  credentialSecrets,
  type RemoteCredentials,
} from '../../src/store/branch/data-branch.js';
import { DirStore } from '../../src/store/dir/dir-store.js';
import { pendingCleanups, runCleanups } from '../../src/machine/os/cleanup.js';
import { UserError } from '../../src/core/util/errors.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner, type ProcessRunner } from '../../src/machine/os/process.js';
import { filesHolding, startGitHttpServer, type GitHttpServer } from '../helpers/git-http.js';
import { minutesAfter, readFixture } from '../../testkit/store-fixture.js';

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

describe('DataBranch over HTTP: the token is never on disk', () => {
  const TOKEN = 'ghs_dataBranchTestToken0123456789abcdef';
  const credentials: RemoteCredentials = { username: 'x-access-token', password: TOKEN };
  const secrets = [TOKEN, ...credentialSecrets(credentials)];
  let server: GitHttpServer;
  let home: string;
  let remoteUrl: string;

  beforeAll(async () => {
    home = path.join(tmp, 'http');
    execFileSync('git', ['init', '-q', '--bare', path.join(home, 'repos', 'pg', 'postgres.git')]);
    server = await startGitHttpServer({
      root: path.join(home, 'repos'),
      username: 'x-access-token',
      password: TOKEN,
    });
    remoteUrl = `${server.url}/pg/postgres.git`;
  });
  afterAll(async () => {
    await server?.close();
  });

  const gone = (dir: string) =>
    access(dir).then(
      () => false,
      () => true,
    );
  const checkout = async (workDir: string, creds: RemoteCredentials | undefined, remote = remoteUrl) =>
    DataBranch.checkout(
      { remote, ...(creds ? { credentials: creds } : {}), branch: 'data-http', workDir, backoffMs: 1 },
      { runner: nodeProcessRunner, logger: memoryLogger() },
    );

  it("authenticates with a header in git's environment; .git/config and every file hold no token", async () => {
    server.requests.length = 0;
    const workDir = await mkdtemp(path.join(home, 'pgperf-data-branch-'));
    const branch = await checkout(workDir, credentials);
    const published = await branch.publish(saver(runAt(400)));
    // While the work tree exists: the remote is there without credentials, and no file holds the token.
    const config = await readFile(path.join(workDir, '.git', 'config'), 'utf8');
    expect(config).toContain(`url = ${remoteUrl}`);
    expect(config).not.toMatch(/x-access-token|extraheader|authorization/i);
    expect(await filesHolding(workDir, secrets)).toEqual([]);
    await branch.close();
    expect(await gone(workDir)).toBe(true);
    // Every request git made carried the header (none was refused), the push included.
    expect(server.requests.length).toBeGreaterThan(0);
    expect(server.requests.every((r) => r.authorized)).toBe(true);
    expect(server.requests.some((r) => r.url.includes('git-receive-pack'))).toBe(true);
    const bare = path.join(home, 'repos', 'pg', 'postgres.git');
    const head = execFileSync('git', ['--git-dir', bare, 'rev-parse', 'refs/heads/data-http'])
      .toString()
      .trim();
    expect(head).toBe(published.commit);
    expect(await filesHolding(tmp, secrets)).toEqual([]);
  }, 60_000);

  it('a failed checkout (the token refused) removes the work tree and prints no token', async () => {
    const wrong: RemoteCredentials = { username: 'x-access-token', password: 'ghs_wrongToken_zyxwvu987654' };
    const workDir = await mkdtemp(path.join(home, 'pgperf-data-branch-'));
    const err = await checkout(workDir, wrong).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(
      new RegExp(`^store-branch data-http: git ls-remote on ${server.url}/pg/postgres\\.git failed: `),
    );
    expect((err as Error).message).toMatch(
      /the remote refused the credentials: the token needs contents: write on this repository$/,
    );
    for (const secret of [wrong.password, basicAuthorization(wrong)]) {
      expect((err as Error).message).not.toContain(secret);
    }
    expect(await gone(workDir)).toBe(true);
    expect(await filesHolding(tmp, [...secrets, ...credentialSecrets(wrong)])).toEqual([]);
    // Without credentials git is refused too: it never falls back to a helper or a prompt.
    const bare = await mkdtemp(path.join(home, 'pgperf-data-branch-'));
    await expect(checkout(bare, undefined)).rejects.toThrow(/git ls-remote on .* failed/);
    expect(await gone(bare)).toBe(true);
  }, 60_000);

  it('a cancel while git waits on the remote (the forced exit runs the cleanups): the work tree is gone', async () => {
    const workDir = await mkdtemp(path.join(home, 'pgperf-data-branch-'));
    const branch = await checkout(workDir, credentials);
    let release!: (ok: boolean) => void;
    const held = new Promise<void>((resolve) => {
      server.hold = (r) => {
        if (!r.url.includes('git-receive-pack')) return undefined;
        // The push waits here; meanwhile the adapter is told to stop and runs every cleanup.
        return new Promise<void>((ok, drop) => {
          release = (yes) => (yes ? ok() : drop(new Error('dropped')));
          resolve();
        });
      };
    });
    const publishing = branch.publish(saver(runAt(500)));
    await held;
    expect(pendingCleanups()).toBeGreaterThan(0);
    await runCleanups();
    expect(await gone(workDir)).toBe(true);
    release(false);
    server.hold = undefined;
    await expect(publishing).rejects.toThrow(UserError);
    await branch.close();
    expect(await filesHolding(tmp, secrets)).toEqual([]);
  }, 60_000);

  it('refuses a remote URL with credentials in it (they would be written to .git/config)', async () => {
    const workDir = await mkdtemp(path.join(home, 'pgperf-data-branch-'));
    const withToken = remoteUrl.replace('http://', `http://x-access-token:${TOKEN}@`);
    const err = await checkout(workDir, undefined, withToken).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toBe(
      `store-branch remote ${withToken.replace(TOKEN, '***')} carries credentials: they would be written to .git/config; give the URL without them and the credentials separately`,
    );
    expect(await gone(workDir)).toBe(true);
  });
});
