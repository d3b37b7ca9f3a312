/**
 * A data-branch remote that accepts connections and never answers (a loopback TCP server that reads and
 * never writes), against the Action from source (src/index.ts through tsx, mode calibrate with
 * `store-branch`, the remote at GITHUB_SERVER_URL): git has no timeout of its own, so one SIGINT used not to
 * stop pgperf within a minute, and after a second one an orphaned `git remote-http` kept running with the
 * Authorization header in its environment (only the direct child was killed). Now one SIGINT (or SIGTERM)
 * stops the waiting git with its process group: the action exits within 10 s, no process mentions the remote,
 * and no process's environment holds the token, in any form.
 */
import { readdirSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialSecrets } from '../../src/store/branch/data-branch.js';
import { calibrateToDataBranch } from '../helpers/data-branch-run.js';
import { environmentsHolding } from '../helpers/git-http.js';
import { installedBinDir, leftoverProcesses } from '../../testkit/postgres.js';

const TOKEN = 'ghs_hangingRemoteToken_8c1d2e3f4a5b';
const secrets = [TOKEN, ...credentialSecrets({ username: 'x-access-token', password: TOKEN })];

/** A TCP server on 127.0.0.1 that accepts every connection, reads what it is sent and never answers. */
async function silentServer(): Promise<{ url: string; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => count,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let tmp: string;
let workspace: string;
let server: Awaited<ReturnType<typeof silentServer>>;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-hang-'));
  await chmod(tmp, 0o755);
  workspace = path.join(tmp, 'workspace');
  await mkdir(workspace);
  await writeFile(
    path.join(workspace, 'aa.yml'),
    'name: aa\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 2\n',
  );
  server = await silentServer();
});
afterAll(async () => {
  await server?.close();
  await rm(tmp, { recursive: true, force: true });
});

describe('a data-branch remote that never answers', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'one %s stops the waiting git with its group: exit within 10 s, no child left, no token in any environment',
    async (signal) => {
      const runnerTemp = await mkdtemp(path.join(tmp, 'runner-temp-'));
      const before = server.connections();
      let signalledAt: number | undefined;
      const ran = await calibrateToDataBranch({
        workspace,
        serverUrl: server.url,
        runnerTemp,
        binDir: installedBinDir(),
        workload: path.join(workspace, 'aa.yml'),
        token: TOKEN,
        resultsDir: `results-${signal}`,
        source: true,
        onStart: (child) => {
          // Once git is connected and waiting for an answer, one signal; a guard for a run that never ends.
          const waiting = setInterval(() => {
            if (server.connections() === before) return;
            clearInterval(waiting);
            setTimeout(() => {
              signalledAt = Date.now();
              child.kill(signal);
            }, 500);
          }, 50);
          const guard = setTimeout(() => child.kill('SIGKILL'), 90_000);
          child.on('close', () => {
            clearInterval(waiting);
            clearTimeout(guard);
          });
        },
      });
      const stoppedAfter = Date.now() - signalledAt!;
      expect(signalledAt, ran.stdout).toBeDefined();
      expect(stoppedAfter, ran.stdout).toBeLessThan(10_000);
      expect(ran.code, ran.stdout).toBe(signal === 'SIGINT' ? 130 : 143);
      expect(ran.stdout).toMatch(
        /store-branch pgperf-data: git ls-remote on http:\/\/127\.0\.0\.1:\d+\/pg\/postgres\.git stopped: interrupted by a signal/,
      );
      expect(ran.stdout).not.toMatch(/internal error|^\s+at /m);
      // Nothing of it is left: no git, no git remote-http, no process with the token in its environment.
      expect(leftoverProcesses(server.url)).toEqual([]);
      expect(leftoverProcesses(runnerTemp)).toEqual([]);
      expect(environmentsHolding(secrets)).toEqual([]);
      expect(readdirSync(runnerTemp).filter((n) => n.startsWith('pgperf-data-branch-'))).toEqual([]);
    },
    120_000,
  );
});
