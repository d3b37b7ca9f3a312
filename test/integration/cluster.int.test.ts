import { mkdtemp, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, inspectBinDir } from '../../src/postgres/cluster/cluster.js';
import { resolveRunAs } from '../../src/postgres/cluster/run-as.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { useTestClusters } from '../helpers/clusters.js';
import { installDeps } from '../helpers/run-as.js';
import { installedBinDir, processesMentioning, processUid } from '../../testkit/postgres.js';

const binDir = installedBinDir();
const clusters = useTestClusters('pgperf-it-cluster-');

describe('PgCluster (real PostgreSQL)', () => {
  it('initdb, start on a private socket, run SQL, stop, and leave nothing behind', async () => {
    const cluster = await clusters.create('base', binDir, {
      maxClients: 100,
      workloadSettings: { work_mem: '8MB' },
    });
    try {
      await cluster.start();
      expect(await cluster.isRunning()).toBe(true);
      expect((await cluster.psql('SHOW max_connections')).trim()).toBe('108');
      expect((await cluster.psql('SHOW work_mem')).trim()).toBe('8MB');
      expect((await cluster.psql('SHOW jit')).trim()).toBe('off');
      expect((await cluster.psql("SELECT current_setting('listen_addresses')")).trim()).toBe('');
      expect((await cluster.psql('SELECT current_database()')).trim()).toBe('pgperf');
      expect(cluster.connection.host.startsWith(cluster.dir)).toBe(true);
      expect((await stat(cluster.socketDir)).mode & 0o777).toBe(0o700);

      // PostgreSQL refuses root: as root, the postmaster runs as the unprivileged run-as user.
      const pid = (await cluster.postmasterPid())!;
      const runAs = clusters.runAs();
      expect(processUid(pid)).toBe(runAs ? runAs.uid : process.getuid!());
      expect(processUid(pid)).not.toBe(0);
    } finally {
      await cluster.destroy();
    }
    await expect(stat(cluster.dir)).rejects.toThrow(/ENOENT/);
    expect(processesMentioning(cluster.dir)).toEqual([]);
  });

  it('stop escalates when the server is gone or stuck, and destroy is idempotent', async () => {
    const conf = { maxClients: 1, workloadSettings: {} };
    const cluster = await clusters.create('x', binDir, conf, { stopTimeoutS: 2 });
    await cluster.start();
    const pid = (await cluster.postmasterPid())!;
    process.kill(pid, 'SIGSTOP'); // a server that does not answer shutdown requests
    try {
      await cluster.destroy();
    } finally {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Already killed, as expected.
      }
    }
    expect(processesMentioning(cluster.dir)).toEqual([]);
    await cluster.destroy();
  });

  it('a server that fails to start reports the tail of its log and leaves nothing running', async () => {
    const conf = { maxClients: 1, workloadSettings: { shared_buffers: 'lots' } };
    const cluster = await clusters.create('bad', binDir, conf);
    try {
      await expect(cluster.start()).rejects.toThrow(
        /arm bad: PostgreSQL failed to start .*Server log .*\n.*invalid value for parameter "shared_buffers": "lots"/s,
      );
    } finally {
      await cluster.destroy();
    }
    expect(processesMentioning(cluster.dir)).toEqual([]);
  });

  it.runIf(process.getuid?.() === 0)(
    'as root, a parent directory the run-as user cannot enter is named',
    async () => {
      const privateDir = await mkdtemp(path.join(clusters.dir(), 'private-'));
      const conf = { maxClients: 1, workloadSettings: {} };
      await expect(clusters.create('p', binDir, conf, { parentDir: privateDir })).rejects.toThrow(
        /arm p: the user "pgperf" that runs PostgreSQL cannot enter .*private-.*Choose a --tmp-dir/,
      );
    },
  );

  it('a bin dir without PostgreSQL is refused with a clear message', async () => {
    await expect(inspectBinDir('/usr/bin', 'arm head', await installDeps())).rejects.toThrow(
      'arm head: /usr/bin has no executable initdb (expected a PostgreSQL bin directory such as /usr/lib/postgresql/15/bin)',
    );
  });

  it('reads the server version of a bin dir', async () => {
    const v = await inspectBinDir(binDir, 'arm base', await installDeps());
    expect(v.text).toMatch(/^postgres \(PostgreSQL\) \d+/);
    expect(v.major).toBe(Number(/\/(\d+)\/bin$/.exec(binDir)![1]));
  });

  it('freePort gives a port nothing listens on', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(1024);
    expect(port).toBeLessThan(65536);
  });
});

describe('resolveRunAs', () => {
  it('is the current user when not root', async () => {
    expect(await resolveRunAs('whoever', { ...clusters.deps, isRoot: false })).toBeUndefined();
  });

  it('refuses to run the server as root', async () => {
    await expect(resolveRunAs('root', { ...clusters.deps, isRoot: true })).rejects.toThrow(
      /--run-as root: PostgreSQL refuses to run as root/,
    );
  });

  it.runIf(process.getuid?.() === 0)('as root, creates a missing user and says so', async () => {
    const name = `pgperf_t${process.pid % 100000}`;
    const log = memoryLogger();
    try {
      const user = await resolveRunAs(name, { runner: nodeProcessRunner, logger: log, isRoot: true });
      expect(user?.name).toBe(name);
      expect(user?.uid).toBeGreaterThan(0);
      expect(log.lines.join('\n')).toContain(`created system user "${name}"`);
      // A second time it is found, not created.
      const again = memoryLogger();
      expect(await resolveRunAs(name, { runner: nodeProcessRunner, logger: again, isRoot: true })).toEqual(
        user,
      );
      expect(again.lines).toEqual([]);
    } finally {
      await nodeProcessRunner.run('userdel', [name]);
    }
  });
});
