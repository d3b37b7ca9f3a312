/**
 * A PostgreSQL server for store tests: initdb into a temp dir (as the unprivileged run-as user when the
 * tests run as root), listening on a private unix socket (trust, for the test's admin connection) AND
 * on 127.0.0.1 at a free port with scram-sha-256 password authentication (so URLs with passwords, auth
 * failures and masking are tested for real). Stopped by its own pid.
 */
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../src/postgres/cluster/cluster.js';
import { resolveRunAs, type RunAsUser } from '../src/postgres/cluster/run-as.js';
import { memoryLogger } from '../src/core/util/logger.js';
import { nodeProcessRunner, type RunOptions } from '../src/machine/os/process.js';
import { installedBinDir } from './postgres.js';

export interface TestPgServer {
  dir: string;
  socketDir: string;
  port: number;
  binDir: string;
  /** Runs SQL as the superuser over the unix socket. */
  admin(sql: string, params?: unknown[], database?: string): Promise<pg.QueryResult>;
  /** Stops the server (fast, then SIGKILL to the postmaster's pid) and removes its directory. */
  stop(): Promise<void>;
  postmasterPid(): Promise<number | undefined>;
}

export async function startTestPgServer(label: string): Promise<TestPgServer> {
  const binDir = installedBinDir();
  const deps = { runner: nodeProcessRunner, logger: memoryLogger() };
  const runAs: RunAsUser | undefined = await resolveRunAs(undefined, deps);
  const dir = await mkdtemp(path.join(os.tmpdir(), `pgperf-it-${label}-`));
  await chmod(dir, 0o755);
  const dataDir = path.join(dir, 'data');
  const socketDir = path.join(dir, 'socket');
  await mkdir(socketDir, { mode: 0o700 });
  if (runAs) {
    await chown(dir, runAs.uid, runAs.gid);
    await chown(socketDir, runAs.uid, runAs.gid);
  }
  const asServer: RunOptions = { env: { ...process.env, LC_ALL: 'C' }, cwd: dir };
  if (runAs) Object.assign(asServer, { uid: runAs.uid, gid: runAs.gid });
  const run = async (bin: string, args: string[]) => {
    const res = await nodeProcessRunner.run(path.join(binDir, bin), args, asServer);
    if (res.exitCode !== 0) throw new Error(`${bin} ${args.join(' ')} failed: ${res.stderr}${res.stdout}`);
    return res;
  };

  await run('initdb', [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '-A',
    'trust',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  await writeFile(
    path.join(dataDir, 'pg_hba.conf'),
    'local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n',
  );
  let port = 0;
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    await writeFile(
      path.join(dataDir, 'postgresql.auto.conf'),
      [
        `listen_addresses = '127.0.0.1'`,
        `port = ${port}`,
        `unix_socket_directories = '${socketDir}'`,
        `password_encryption = 'scram-sha-256'`,
        `fsync = off`,
        `max_connections = 50`,
        `shared_buffers = '32MB'`,
        '',
      ].join('\n'),
    );
    try {
      await run('pg_ctl', [
        'start',
        '-D',
        dataDir,
        '-l',
        path.join(dir, 'server.log'),
        '-w',
        '-t',
        '60',
        '-s',
      ]);
      break;
    } catch (e) {
      if (attempt >= 3)
        throw new Error(`${(e as Error).message}\n${await readFile(path.join(dir, 'server.log'), 'utf8')}`);
    }
  }

  const postmasterPid = async () => {
    try {
      const pid = Number((await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
      return Number.isInteger(pid) && pid > 0 ? pid : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    dir,
    socketDir,
    port,
    binDir,
    postmasterPid,
    async admin(sql, params, database = 'postgres') {
      const client = new pg.Client({ host: socketDir, port, user: 'postgres', database });
      await client.connect();
      try {
        return await client.query(sql, params);
      } finally {
        await client.end();
      }
    },
    async stop() {
      const pid = await postmasterPid();
      if (pid) {
        await nodeProcessRunner.run(
          path.join(binDir, 'pg_ctl'),
          ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '30', '-s'],
          asServer,
        );
        if (await postmasterPid()) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // Already gone.
          }
        }
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
