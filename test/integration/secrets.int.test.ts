/**
 * The environment a workload's own code sees: a custom pgbench script runs `\shell env` while
 * pgperf's environment holds a fake Action token (INPUT_GITHUB-TOKEN, GITHUB_TOKEN, an ACTIONS_ runtime
 * token). None of them may reach it; the allow-listed PATH does.
 *
 * No token on disk: the built action (dist/index.js) with `store-branch` pushes to a git smart-HTTP server
 * on 127.0.0.1 (GITHUB_SERVER_URL) that accepts only the token; after a success, a refused token, a cancel
 * (SIGTERM while git waits on the remote) and a forced cancel (a second SIGTERM), no file under the
 * runner temp directory or the workspace holds the token, and no data-branch work tree is left.
 */
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialSecrets } from '../../src/store/branch/data-branch.js';
import type { ActionRun } from '../helpers/action-run.js';
import { calibrateToDataBranch } from '../helpers/data-branch-run.js';
import {
  environmentsHolding,
  filesHolding,
  startGitHttpServer,
  type GitHttpServer,
} from '../helpers/git-http.js';
import { loadWorkloadFile } from '../../src/drivers/load-workload.js';
import { runBenchmark } from '../../src/run/run-loop.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';
import { resolveAnalysis } from '../../src/core/compare/analysis/recorded-analysis.js';
import { fileSink } from '../../src/run/sink.js';

const binDir = installedBinDir();
let tmp: string;
const saved = { ...process.env };

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-secrets-'));
  await chmod(tmp, 0o755);
});
afterAll(async () => {
  process.env = saved;
  await rm(tmp, { recursive: true, force: true });
});

it('a workload script (\\shell env) sees no token, no INPUT_*, no ACTIONS_*', async () => {
  // As root, pgbench (and so \shell) runs as the unprivileged run user: it writes into a shared directory.
  const shared = path.join(tmp, 'shell-out');
  await mkdir(shared);
  await chmod(shared, 0o1777);
  const envFile = path.join(shared, 'env.txt');
  await writeFile(path.join(tmp, 'spy.sql'), `\\shell env > ${envFile}\nSELECT 1;\n`);
  await writeFile(
    path.join(tmp, 'spy.yml'),
    [
      'name: spy',
      'tool: pgbench',
      'scripts: [{ file: spy.sql }]',
      'scale: 1',
      'clients: [1]',
      'duration: 1',
      'warmup: 0',
      'rounds: 1',
      'settings: { shared_buffers: 32MB }',
    ].join('\n'),
  );
  const workload = await loadWorkloadFile(path.join(tmp, 'spy.yml'));
  process.env['INPUT_GITHUB-TOKEN'] = 'ghs_fake_input_token_123';
  process.env.GITHUB_TOKEN = 'ghs_fake_github_token_456';
  process.env.ACTIONS_RUNTIME_TOKEN = 'fake_runtime_789';
  process.env.PGPERF_STORE = 'postgres://u:fake_store_pw@localhost/x';
  const result = await runBenchmark(
    {
      arms: [
        { label: 'base', binDir, settings: {} },
        { label: 'head', binDir, settings: {} },
      ],
      workloads: [workload],
      order: 'random',
      sink: fileSink(path.join(tmp, 'out', 'results.json')),
      analysis: resolveAnalysis(),
      dataChecksums: false,
      tmpDir: tmp,
      seed: 1,
    },
    { runner: nodeProcessRunner, logger: memoryLogger() },
  );
  expect(result.status).toBe('complete');
  const seen = await readFile(envFile, 'utf8');
  expect(seen).toMatch(/^PATH=/m);
  expect(seen).toMatch(/^PGAPPNAME=pgbench$/m);
  for (const secret of [
    'ghs_fake_input_token_123',
    'ghs_fake_github_token_456',
    'fake_runtime_789',
    'fake_store_pw',
  ]) {
    expect(seen).not.toContain(secret);
  }
  expect(seen).not.toMatch(/^(INPUT_|ACTIONS_|GITHUB_TOKEN)/m);
  expect(processesMentioning(tmp)).toEqual([]);
  expect((await readdir(tmp)).filter((d) => d.startsWith('pgperf-'))).toEqual([]);
});

describe('the built action with store-branch leaves no token on disk', () => {
  const TOKEN = 'ghs_actionDataBranchToken_5f3c9a1e7b2d';
  const secrets = [TOKEN, ...credentialSecrets({ username: 'x-access-token', password: TOKEN })];
  let server: GitHttpServer;
  let workspace: string;
  let workload: string;
  let steps = 0;

  beforeAll(async () => {
    workspace = path.join(tmp, 'workspace');
    await mkdir(workspace, { recursive: true });
    await chmod(workspace, 0o755);
    execFileSync('git', ['init', '-q', '--bare', path.join(tmp, 'repos', 'pg', 'postgres.git')]);
    server = await startGitHttpServer({
      root: path.join(tmp, 'repos'),
      username: 'x-access-token',
      password: TOKEN,
    });
    workload = path.join(workspace, 'aa.yml');
    await writeFile(
      workload,
      'name: aa\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 2\n',
    );
    await chmod(workload, 0o644);
  });
  afterAll(async () => {
    await server?.close();
  });

  /** mode calibrate saving to the data branch, with its own runner temp directory (returned). */
  async function calibrate(
    token: string,
    whileRunning?: (runnerTemp: string) => Promise<void>,
  ): Promise<{ ran: ActionRun; runnerTemp: string }> {
    const runnerTemp = path.join(workspace, `runner-temp-${++steps}`);
    await mkdir(runnerTemp);
    const running = calibrateToDataBranch({
      workspace,
      serverUrl: server.url,
      runnerTemp,
      binDir,
      workload,
      token,
      resultsDir: `results-${steps}`,
      inputs: { rounds: '2', duration: '1', store: '' },
    });
    await whileRunning?.(runnerTemp);
    return { ran: await running, runnerTemp };
  }

  /** Data-branch work trees left in `dir`. */
  const workTrees = (dir: string) =>
    readdir(dir).then((names) => names.filter((n) => n.startsWith('pgperf-data-branch-')));

  /** What is printed, without the runner's own ::add-mask:: lines (which the runner hides). */
  const printed = (ran: ActionRun) =>
    ran.stdout
      .split('\n')
      .filter((l) => !l.startsWith('::add-mask::'))
      .join('\n');

  /** The action's pid: the parent of the git process working in `runnerTemp` (waits for one). */
  async function actionPidOf(runnerTemp: string): Promise<number> {
    for (let i = 0; i < 200; i++) {
      for (const pid of processesMentioning(runnerTemp)) {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (cmd.startsWith('git')) return Number(/^PPid:\s+(\d+)/m.exec(status)![1]);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no git process in ${runnerTemp}`);
  }

  /** Holds the first request of git's `service` until the returned release is called (true: serve it). */
  function holdFirst(service: string): { held: Promise<void>; release: (serve: boolean) => void } {
    let release!: (serve: boolean) => void;
    let onHeld!: () => void;
    const held = new Promise<void>((r) => (onHeld = r));
    server.hold = (r) => {
      if (!r.url.includes(service)) return undefined;
      server.hold = undefined;
      onHeld();
      return new Promise<void>((ok, drop) => {
        release = (serve) => (serve ? ok() : drop(new Error('dropped')));
      });
    };
    return { held, release: (serve) => release(serve) };
  }

  it('after a success: the run is pushed with the token, no file holds it', async () => {
    server.requests.length = 0;
    const { ran, runnerTemp } = await calibrate(TOKEN);
    expect(ran.code, ran.stdout).toBe(0);
    expect(server.requests.some((r) => r.url.includes('git-receive-pack') && r.authorized)).toBe(true);
    expect(server.requests.every((r) => r.authorized)).toBe(true);
    const bare = path.join(tmp, 'repos', 'pg', 'postgres.git');
    expect(execFileSync('git', ['--git-dir', bare, 'log', '--format=%s', 'pgperf-data']).toString()).toMatch(
      /^pgperf: run /,
    );
    // Masked: the token and the header value that encodes it are registered, and printed nowhere else.
    for (const secret of secrets.slice(0, 1).concat(secrets.slice(-1))) {
      expect(ran.stdout).toContain(`::add-mask::${secret}`);
    }
    for (const secret of secrets) expect(printed(ran)).not.toContain(secret);
    expect(await workTrees(runnerTemp)).toEqual([]);
    expect(await filesHolding(runnerTemp, secrets)).toEqual([]);
    expect(await filesHolding(workspace, secrets)).toEqual([]);
  }, 120_000);

  it('after a refused token: a clear error, the work tree removed, no file holds it', async () => {
    const wrong = 'ghs_refusedToken_0a1b2c3d4e5f';
    const { ran, runnerTemp } = await calibrate(wrong);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(
      /::error::store-branch pgperf-data: git ls-remote on http:\/\/127\.0\.0\.1:\d+\/pg\/postgres\.git failed: .*the remote refused the credentials/,
    );
    expect(ran.stdout).not.toMatch(/^\s+at /m);
    const wrongSecrets = [wrong, ...credentialSecrets({ username: 'x-access-token', password: wrong })];
    for (const secret of wrongSecrets) expect(printed(ran)).not.toContain(secret);
    expect(await workTrees(runnerTemp)).toEqual([]);
    expect(await filesHolding(workspace, [...secrets, ...wrongSecrets])).toEqual([]);
  }, 120_000);

  it('after a cancel while git fetches (SIGTERM stops the waiting git with its group; the run ends)', async () => {
    const gate = holdFirst('git-upload-pack');
    const { ran, runnerTemp } = await calibrate(TOKEN, async (temp) => {
      await gate.held;
      process.kill(await actionPidOf(temp), 'SIGTERM');
      await new Promise((r) => setTimeout(r, 500));
      gate.release(true);
    });
    expect(ran.code, ran.stdout).toBe(143);
    expect(ran.stdout).toMatch(/SIGTERM: stopping/);
    expect(ran.stdout).toMatch(/store-branch pgperf-data: git \S+ on .* stopped: interrupted by a signal/);
    expect(processesMentioning(runnerTemp)).toEqual([]);
    expect(await workTrees(runnerTemp)).toEqual([]);
    expect(await filesHolding(runnerTemp, secrets)).toEqual([]);
    expect(await filesHolding(workspace, secrets)).toEqual([]);
  }, 120_000);

  it('after a forced cancel (SIGINT and SIGTERM at once, as a workflow cancel, while git waits on the remote)', async () => {
    const gate = holdFirst('git-upload-pack');
    const { ran, runnerTemp } = await calibrate(TOKEN, async (temp) => {
      await gate.held;
      const pid = await actionPidOf(temp);
      // Both at once: the first alone now stops git (and the action) within moments. Two different
      // signals, so the kernel cannot merge them into one.
      process.kill(pid, 'SIGINT');
      process.kill(pid, 'SIGTERM');
      // The action exits; the request git left is dropped after.
      for (let i = 0; i < 100 && processesMentioning(process.execPath).includes(pid); i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      gate.release(false);
    });
    expect([130, 143], ran.stdout).toContain(ran.code);
    expect(ran.stdout).toMatch(/SIG(INT|TERM) again: stopping the servers and exiting now/);
    for (let i = 0; i < 100 && processesMentioning(runnerTemp).length > 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(processesMentioning(runnerTemp)).toEqual([]);
    // No git remote-http (whose command line names only the remote) left with the token in its environment.
    expect(environmentsHolding(secrets)).toEqual([]);
    expect(await workTrees(runnerTemp)).toEqual([]);
    expect(await filesHolding(runnerTemp, secrets)).toEqual([]);
    expect(await filesHolding(workspace, secrets)).toEqual([]);
  }, 120_000);
});
