/**
 * Every program of an install is code under test, and as root pgperf runs each as the run-as user with a
 * scrubbed environment (#40; src/postgres/cluster/install-runner.ts), not only the server: the version
 * probe before anything starts, `--describe-config`, `pg_config`, `psql`, `initdb`, `pg_ctl` and the
 * client's version. The install here is fake: each program is a shell script that writes its uid and its
 * environment to a file, then answers as the real one would. The real code paths run it (prepareRun,
 * headConditions, refuseUnknownSettings, hasStatStatements, a PgCluster's create, start, psql, destroy) while
 * pgperf's environment holds fake Action tokens; every record must be the run-as user's and hold none.
 *
 * Not root: pgperf is that user already and nothing is dropped; skipped.
 */
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWorkloads } from '../../src/drivers/load-workload.js';
import { headConditions } from '../../src/flows/compare/baseline/baseline-conditions.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { runCleanups } from '../../src/machine/os/cleanup.js';
import { nodeProcessRunner, type ProcessRunner } from '../../src/machine/os/process.js';
import { PgCluster, inspectBinDir } from '../../src/postgres/cluster/cluster.js';
import { installRunner } from '../../src/postgres/cluster/install-runner.js';
import { refuseUnknownSettings } from '../../src/postgres/cluster/known-settings.js';
import type { RunAsUser } from '../../src/postgres/cluster/run-as.js';
import { hasStatStatements } from '../../src/postgres/plan-capture.js';
import { prepareRun } from '../../src/run/prepare-run.js';
import { sameInstallRequest } from '../helpers/run-request.js';
import { testRunAs } from '../helpers/run-as.js';
import { useTmpDir } from '../helpers/tmp-dir.js';

const isRoot = process.getuid?.() === 0;
const tmp = useTmpDir('pgperf-unit-install-user-');
const TOKENS = {
  'INPUT_GITHUB-TOKEN': `ghs_fakeInputToken${process.pid}`,
  GITHUB_TOKEN: `ghs_fakeGithubToken${process.pid}`,
  ACTIONS_RUNTIME_TOKEN: `fakeRuntimeToken${process.pid}`,
  ACTIONS_ID_TOKEN_REQUEST_URL: `https://fake.invalid/${process.pid}`,
};
const saved = { ...process.env };

/**
 * One program of the fake install: records `id -u` and `env` in DUMPS/NAME-PID.txt, then `answer` (shell
 * lines; "$@" are its arguments).
 */
const program = (dumps: string, name: string, answer: string) => `#!/bin/sh
{ echo "uid $(id -u)"; echo "args $*"; env; } > "${dumps}/${name}-$$.txt"
${answer}
`;

/** The fake install: share and lib where only pg_config knows them, with pg_stat_statements in both. */
async function fakeInstall(dir: string, dumps: string): Promise<string> {
  const bin = path.join(dir, 'bin');
  const share = path.join(dir, 'only-pg-config-knows', 'share');
  const lib = path.join(dir, 'only-pg-config-knows', 'lib');
  await mkdir(path.join(share, 'extension'), { recursive: true });
  await mkdir(lib, { recursive: true });
  await mkdir(bin);
  await writeFile(path.join(share, 'extension', 'pg_stat_statements.control'), '');
  await writeFile(path.join(lib, 'pg_stat_statements.so'), '');
  const programs: Record<string, string> = {
    postgres: [
      'case "$1" in',
      '  --version) echo "postgres (PostgreSQL) 18.0" ;;',
      `  --describe-config) printf 'shared_buffers\\tpostmaster\\tResource Usage / Memory\\tINTEGER\\t1024\\t16\\t1073741823\\tSets memory.\\t\\n' ;;`,
      '  *) exit 1 ;;',
      'esac',
    ].join('\n'),
    pg_config: `echo ${share}; echo ${lib}`,
    // -D DATADIR first, as PgCluster passes it.
    initdb: 'mkdir -p "$2" && : > "$2/postgresql.conf"',
    pg_ctl: 'exit 0',
    // The one query start() asks (does the database exist?) and the test's own.
    psql: 'echo 1',
    pgbench: 'echo "pgbench (PostgreSQL) 18.0"',
  };
  for (const [name, answer] of Object.entries(programs)) {
    await writeFile(path.join(bin, name), program(dumps, name, answer), { mode: 0o755 });
  }
  return bin;
}

/** Every record the fake programs wrote: the program, its uid, its arguments and its environment. */
async function records(dumps: string) {
  const files = await readdir(dumps);
  return Promise.all(
    files.map(async (file) => {
      const [uid, args, ...env] = (await readFile(path.join(dumps, file), 'utf8')).trimEnd().split('\n');
      return { program: file.replace(/-\d+\.txt$/, ''), uid: uid!, args: args!.slice(5), env };
    }),
  );
}

let runAs: RunAsUser;
let dumps: string;
let binDir: string;

beforeAll(async () => {
  if (!isRoot) return;
  runAs = (await testRunAs())!;
  dumps = path.join(tmp(), 'dumps');
  await mkdir(dumps);
  await chmod(dumps, 0o1777); // the run-as user writes its records here
  binDir = await fakeInstall(path.join(tmp(), 'install'), dumps);
  Object.assign(process.env, TOKENS);
});
afterAll(async () => {
  process.env = saved;
  await runCleanups();
});

describe.skipIf(!isRoot)("as root, an install's programs run as the run-as user, without tokens", () => {
  it('the version probes, --describe-config, pg_config, initdb, pg_ctl and psql', async () => {
    const logger = memoryLogger();
    const deps = { runner: nodeProcessRunner, logger };
    const workloads = parseWorkloads(
      'name: ro\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 1\n',
      'ro.yml',
    );
    // Before any server: the arms' postgres --version and the client's pgbench --version.
    const prepared = await prepareRun(sameInstallRequest(binDir, tmp(), workloads), deps);
    expect(prepared.runAs).toEqual(runAs);
    expect(prepared.result.arms.map((a) => a.serverVersion)).toEqual([
      'postgres (PostgreSQL) 18.0',
      'postgres (PostgreSQL) 18.0',
    ]);
    // A run against a stored baseline: head's conditions ask its pgbench for its version first.
    const head = { label: 'head', binDir, settings: {} };
    const now = await headConditions({ workloads, runAs: undefined }, head, binDir, deps);
    expect(now.facts['client.pgbench']).toBe('pgbench (PostgreSQL) 18.0');
    // The settings check: postgres --version and --describe-config (which knows shared_buffers).
    const arms = [{ label: 'head', binDir, settings: { shared_buffers: '64MB' } }];
    await refuseUnknownSettings(arms, [], { ...deps, runAs });
    // The plan phase's look for pg_stat_statements: pg_config says where (no other place has it).
    expect(await hasStatStatements(binDir, { runner: nodeProcessRunner, runAs })).toBe(true);
    // A cluster: initdb, pg_ctl start, psql (its database, then a query), destroy.
    const cluster = await PgCluster.create(
      { label: 'head', binDir, parentDir: tmp(), conf: { maxClients: 1, workloadSettings: {} }, runAs },
      deps,
    );
    try {
      await cluster.start();
      expect((await cluster.psql('SELECT 1')).trim()).toBe('1');
    } finally {
      await cluster.destroy();
    }

    const seen = await records(dumps);
    const ran = (program: string, arg: string) =>
      seen.filter((r) => r.program === program && r.args.startsWith(arg)).length;
    expect(ran('postgres', '--version')).toBeGreaterThanOrEqual(3); // 2 arms, the settings check, the cluster
    expect(ran('postgres', '--describe-config')).toBe(1);
    expect(ran('pg_config', '--sharedir')).toBe(1);
    expect(ran('pgbench', '--version')).toBe(2); // the run's client, head's conditions
    expect(ran('initdb', '-D')).toBe(1);
    expect(ran('pg_ctl', 'start')).toBe(1);
    expect(ran('psql', '')).toBe(2);
    const who = (r: (typeof seen)[number]) => `${r.program} ${r.args}`;
    expect(seen.filter((r) => r.uid !== `uid ${runAs.uid}`).map((r) => `${who(r)}: ${r.uid}`)).toEqual([]);
    const token = (line: string) =>
      /^(INPUT_|ACTIONS_|GITHUB_TOKEN=)/.test(line) || Object.values(TOKENS).some((v) => line.includes(v));
    expect(seen.filter((r) => r.env.some(token)).map(who), 'an Action token reached').toEqual([]);
    // The records hold the environment (the check is not blind): the allow-listed PATH, pgperf's LC_ALL.
    for (const r of seen) expect(r.env, who(r)).toContainEqual(expect.stringMatching(/^PATH=/));
    expect(seen.find((r) => r.program === 'psql')!.env).toContain('LC_ALL=C');
  }, 60_000);

  it('a bin dir the run-as user cannot reach is refused, naming that user', async () => {
    const hidden = path.join(tmp(), 'private');
    await mkdir(hidden, { mode: 0o700 });
    const bin = await fakeInstall(hidden, dumps);
    await expect(inspectBinDir(bin, 'arm head', { runner: nodeProcessRunner, runAs })).rejects.toThrow(
      `arm head: ${bin}/postgres --version failed (could not start ${bin}/postgres: spawn ${bin}/postgres EACCES); the user "${runAs.name}" that runs PostgreSQL must be able to reach and execute ${bin} (no private directory such as /root above it)`,
    );
  });

  it('without a run-as user, as root, an install program is refused, not run as root', async () => {
    const ran: string[] = [];
    const spy: ProcessRunner = {
      run: (command, args, options) => {
        ran.push(command);
        return nodeProcessRunner.run(command, args, options);
      },
    };
    await expect(inspectBinDir(binDir, 'arm head', { runner: spy, runAs: undefined })).rejects.toThrow(
      /postgres would run as root: an install's programs run as the run-as user when pgperf is root/,
    );
    expect(ran).toEqual([]);
    // Not root: pgperf's own runner, unchanged.
    expect(installRunner({ runner: spy, runAs: undefined }, false)).toBe(spy);
  });
});
