/**
 * Shipped script workloads run from a clone in root's 0700 home (#39 item 4). As root, pgbench runs as the
 * unprivileged run user, which cannot enter /root: a script readable by all (0644, as git checks it out)
 * behind such a directory is handed to that user as a copy in a temp directory of its own, and pgbench is
 * pointed at the copy; a script only root may read (0600) is still refused, naming the file and the user.
 * The pgbench here is a stand-in that prints the scripts it is given (`-f FILE@WEIGHT`), run as the run
 * user as the real one is: what it prints is what that user could read. Needs root (skipped otherwise).
 */
import { chmod, copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkloadFile } from '../../../src/drivers/load-workload.js';
import { pgbenchDriver } from '../../../src/drivers/pgbench/pgbench-driver.js';
import type { PgbenchWorkload } from '../../../src/drivers/pgbench/pgbench-workload.js';
import { memoryLogger } from '../../../src/core/util/logger.js';
import { runCleanups } from '../../../src/machine/os/cleanup.js';
import {
  nodeProcessRunner,
  runnerAs,
  type ProcessResult,
  type ProcessRunner,
} from '../../../src/machine/os/process.js';
import { resolveRunAs, type RunAsUser } from '../../../src/postgres/cluster/run-as.js';
import { ROOT } from '../../helpers/cli.js';
import { useTmpDir } from '../../helpers/tmp-dir.js';

const isRoot = process.getuid?.() === 0;
const tmp = useTmpDir('pgperf-unit-private-scripts-');

/** A pgbench that prints every script file it is given, and fails when it cannot read one. */
const FAKE_PGBENCH = `#!/bin/sh
for a in "$@"; do
  case "$a" in *.sql@*) cat -- "\${a%@*}" || exit 1 ;; esac
done
`;

let user: RunAsUser;
let binDir: string;
let home: string;

beforeAll(async () => {
  if (!isRoot) return;
  user = (await resolveRunAs(undefined, { runner: nodeProcessRunner, logger: memoryLogger() }))!;
  binDir = path.join(tmp(), 'bin');
  await mkdir(binDir, { mode: 0o755 });
  await writeFile(path.join(binDir, 'pgbench'), FAKE_PGBENCH, { mode: 0o755 });
  // A clone in a private home: the workload file and its script as a checkout leaves them (0644).
  home = path.join(tmp(), 'root-home');
  await mkdir(path.join(home, 'pgperf', 'workloads', 'scripts'), { recursive: true });
  await chmod(home, 0o700);
  for (const file of ['ecommerce-order.yml', 'scripts/ecommerce-order.sql']) {
    const to = path.join(home, 'pgperf', 'workloads', file);
    await copyFile(path.join(ROOT, 'workloads', file), to);
    await chmod(to, 0o644);
  }
});
afterAll(() => runCleanups());

/** The driver of `workload` with pgbench run as the run user, and every process it ran with its result. */
function driverOf(workload: PgbenchWorkload) {
  const ran: Array<{ command: string; args: string[]; result: ProcessResult }> = [];
  const asUser = runnerAs(nodeProcessRunner, user);
  const runner: ProcessRunner = {
    async run(command, args, options) {
      const result = await asUser.run(command, args, options);
      ran.push({ command, args, result });
      return result;
    },
  };
  const logger = memoryLogger();
  const driver = pgbenchDriver({
    workload,
    clientBinDir: binDir,
    cpuCount: 1,
    runner,
    logger,
    clientUser: user,
  });
  return { driver, ran, logger };
}

const target = {
  label: 'base',
  connection: { host: '/nonexistent', port: 5432, database: 'pgperf', user: 'pgperf' },
  version: { major: 15, text: '15' },
  psql: () => Promise.resolve(''),
} as never;

describe.skipIf(!isRoot)('a script behind a 0700 directory (needs root)', () => {
  it('the run user cannot open the shipped script where it is', async () => {
    const res = await runnerAs(nodeProcessRunner, user).run('head', [
      '-c',
      '0',
      path.join(home, 'pgperf/workloads/scripts/ecommerce-order.sql'),
    ]);
    expect(res.exitCode).not.toBe(0);
    expect(res.stderr).toMatch(/Permission denied/);
  });

  it('is handed to the run user as a copy, which pgbench reads, in every run', async () => {
    const workload = (await loadWorkloadFile(
      path.join(home, 'pgperf/workloads/ecommerce-order.yml'),
    )) as PgbenchWorkload;
    const { driver, ran, logger } = driverOf(workload);
    await driver.checkFiles!();
    await driver.runTransactions!(target, { clients: 1, transactions: 10, seed: 1, applicationName: 'x' });
    const pgbench = ran.find((r) => r.command.endsWith('/pgbench'))!;
    const f = pgbench.args[pgbench.args.indexOf('-f') + 1]!;
    const copy = f.slice(0, f.lastIndexOf('@'));
    expect(copy.startsWith(home)).toBe(false);
    expect(path.basename(copy)).toBe('1-ecommerce-order.sql');
    // pgbench, as the run user, read the script's text.
    expect(pgbench.result.exitCode, pgbench.result.stderr).toBe(0);
    expect(pgbench.result.stdout).toContain('UPDATE pgbench_accounts');
    // The workload as loaded (and recorded in results.json) still names the file in the clone.
    expect(workload.scripts![0]!.file).toBe(path.join(home, 'pgperf/workloads/scripts/ecommerce-order.sql'));
    expect(logger.lines.join('\n')).toMatch(
      /ecommerce-order\.sql is behind a directory the user "pgperf" cannot enter; pgbench reads a copy/,
    );
  });

  it('a script only root may read (0600) is refused, naming the file and the user', async () => {
    const dir = path.join(home, 'secret');
    await mkdir(dir);
    await writeFile(path.join(dir, 'secret.sql'), 'SELECT 1;\n', { mode: 0o600 });
    await writeFile(
      path.join(dir, 'secret.yml'),
      'name: secret\ntool: pgbench\nscripts: [{ file: secret.sql }]\nclients: [1]\n',
    );
    const workload = (await loadWorkloadFile(path.join(dir, 'secret.yml'))) as PgbenchWorkload;
    const { driver, ran } = driverOf(workload);
    await expect(driver.checkFiles!()).rejects.toThrow(
      /workload secret: scripts\[0\]\.file: .*secret\.sql cannot be read by the user "pgperf" that runs pgbench \(.*Permission denied\)/,
    );
    expect(ran.some((r) => r.command.endsWith('/pgbench'))).toBe(false);
    expect((await readdir(dir)).sort()).toEqual(['secret.sql', 'secret.yml']);
  });
});
