/**
 * The refused settings (src/core/results/settings.ts) against what PostgreSQL itself says about its
 * settings. For each supported major version available here (Debian's PostgreSQL 15, and 18.6 built from
 * the build tests' cached source repository like instructions.int.test.ts, a few minutes cold, then found
 * in the test cache), a real cluster starts (initdb into a temp dir, private unix socket, free port, as the
 * unprivileged run-as user under root) with every module of the install preloaded, so that the modules'
 * own settings (basebackup_to_shell.command, ...) exist too; then `pg_settings` is read and the cluster
 * is stopped by pgperf's stop (fast, then immediate, then the postmaster's own pid).
 *
 * Every setting whose value is a string (the only kind that can name a command, a library, a file, a
 * directory or a server) must be decided: either pgperf refuses a path as its value (the setting itself,
 * or paths in it), or it is in HARMLESS below with the reason it cannot reach outside the install and
 * the cluster's directory. A new string setting of a new release fails here until someone decides; the
 * message says when PostgreSQL's own description names a library, file, directory or command.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildPostgres } from '../../src/postgres/builds/build.js';
import { parseRepo } from '../../src/postgres/builds/source.js';
import { inspectBinDir } from '../../src/postgres/cluster/cluster.js';
import { REFUSED_SETTINGS, settingProblem } from '../../src/core/results/settings.js';
import { UserError } from '../../src/core/util/errors.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { preparePgSourceRepo, testCacheDir } from '../../testkit/pg-source.js';
import { processesMentioning } from '../../testkit/postgres.js';
import { useTestClusters } from '../helpers/clusters.js';
import { installDeps } from '../helpers/run-as.js';

const BUILD_TIMEOUT_MS = 40 * 60_000;
/** Debian's server, installed by scripts/setup.sh. */
const DEBIAN_15 = '/usr/lib/postgresql/15/bin';
/** A value that climbs out of any directory it is appended to, as in the report of issue #33. */
const EVIL_PATH = '../../../../tmp/x/evil';
/** What PostgreSQL's name or description of a setting says when its value is a command, code or a place. */
const NAMES_A_PLACE =
  /librar|module|provider|file|director|path|location|command|program|shell|conninfo|connection string/i;

/**
 * String settings judged harmless, each with the reason: the value is a name looked up inside the install
 * or the catalog, a format, or a list of keywords, and reaches no file, library, command or server.
 * Names in lower case, as PostgreSQL compares them (pg_settings shows DateStyle and TimeZone).
 */
const HARMLESS: Readonly<Record<string, string>> = {
  application_name: 'a name shown in pg_stat_activity and the log',
  backtrace_functions: 'names of C functions whose errors log a backtrace',
  bonjour_name: "a service name; Bonjour advertises TCP sockets only and pgperf's clusters have none",
  client_encoding: 'an encoding name',
  cluster_name: 'a name shown in the process titles',
  createrole_self_grant: 'role options (set, inherit) granted to a role its creator makes',
  datestyle: 'a date format',
  debug_io_direct: 'which kinds of files use direct I/O (data, wal, wal_init): keywords, not paths',
  default_table_access_method: 'the name of a table access method of the catalog',
  default_tablespace:
    'the name of a tablespace of the catalog (a tablespace directory is made by CREATE TABLESPACE, SQL)',
  default_text_search_config: 'the name of a text search configuration of the catalog',
  event_source: 'the name of the Windows event log source',
  log_connections: 'which connection steps to log (a string in 18); the instruction mode writes its own last',
  log_destination:
    'log kinds (stderr, csvlog, jsonlog, syslog): their files go to log_directory, which is refused, and syslog is the system logger any process may write to',
  log_line_prefix: 'the format of log lines; the instruction mode writes its own last',
  log_timezone:
    "a time zone name, looked up in the install's time zone directory one entry at a time (dot entries skipped, so ../ finds nothing)",
  timezone:
    "a time zone name, looked up in the install's time zone directory one entry at a time (dot entries skipped, so ../ finds nothing)",
  timezone_abbreviations:
    "a file name PostgreSQL allows letters only in, read from the install's share/timezonesets",
  'plpgsql.extra_errors': 'names of PL/pgSQL checks',
  'plpgsql.extra_warnings': 'names of PL/pgSQL checks',
  'postgres_fdw.application_name': "a name sent to the servers the workload's own SQL connects to",
  'basebackup_to_shell.required_role': 'a role name',
  primary_slot_name: "a replication slot name, used by a standby only (pgperf's clusters are none)",
  recovery_target:
    "where recovery stops ('immediate'), used only in recovery (pgperf's clusters are never in it)",
  recovery_target_lsn: 'where recovery stops (a WAL location), used only in recovery',
  recovery_target_name: 'where recovery stops (a restore point name), used only in recovery',
  recovery_target_time: 'where recovery stops (a time stamp), used only in recovery',
  recovery_target_timeline: 'the timeline recovery follows (a number or latest), used only in recovery',
  recovery_target_xid: 'where recovery stops (a transaction id), used only in recovery',
  restrict_nonsystem_relation_kind: 'relation kinds (view, foreign-table)',
  search_path: 'schema names of the catalog, not directories',
  ssl_ciphers: "cipher names; pgperf's clusters have no TCP, so no SSL",
  ssl_ecdh_curve: "a curve name; pgperf's clusters have no TCP, so no SSL",
  ssl_groups: "group names; pgperf's clusters have no TCP, so no SSL",
  ssl_tls13_ciphers: "cipher suite names; pgperf's clusters have no TCP, so no SSL",
  synchronized_standby_slots: 'replication slot names',
  synchronous_standby_names:
    'standby names (a name makes commits wait for a standby that never comes: a run that stalls, not one that escapes)',
  syslog_ident: 'the program name in syslog lines',
  temp_tablespaces: 'names of tablespaces of the catalog',
  unix_socket_group: "the group of the socket, which lies in pgperf's private directory (mode 0700)",
  wal_consistency_checking: 'names of WAL resource managers',
};

interface PgSetting {
  name: string;
  context: string;
  short_desc: string;
  extra_desc: string | null;
}

/** Refused: pgperf takes no path as the value (the setting is refused, or a path in its value is). */
const refusesPath = (name: string) => settingProblem(name, EVIL_PATH) !== undefined;

const clusters = useTestClusters('pgperf-it-settings-');
const deps = { runner: nodeProcessRunner, logger: memoryLogger() };
const installs: Array<{ what: string; label: string; binDir: () => string }> = [
  { what: "Debian's PostgreSQL 15", label: 'audit-15', binDir: () => DEBIAN_15 },
  { what: 'PostgreSQL 18 built from source', label: 'audit-18', binDir: () => pg18BinDir },
];
let pg18BinDir = '';
/** Every setting name (lower case, any type) some audited version has. */
const seen = new Set<string>();

beforeAll(async () => {
  // Built once into the test cache (the same request as instructions.int.test.ts's base, so one install).
  const cacheDir = testCacheDir();
  const pg18 = await preparePgSourceRepo({ major: 18, dir: path.join(cacheDir, 'repos', 'pg18') });
  const built = await buildPostgres(
    {
      label: 'base',
      repo: parseRepo(pg18.dir, process.cwd()),
      ref: pg18.baseRef,
      patches: [],
      extraOptions: [],
      cacheDir,
    },
    deps,
  );
  pg18BinDir = built.binDir;
}, BUILD_TIMEOUT_MS);

/**
 * The string settings of a running cluster of `binDir` with every module of the install preloaded (every
 * setting's name goes into `seen`).
 */
async function stringSettings(binDir: string, label: string): Promise<{ major: number; rows: PgSetting[] }> {
  const { major } = await inspectBinDir(binDir, label, await installDeps());
  const pkglibdir = (
    await nodeProcessRunner.run(path.join(binDir, 'pg_config'), ['--pkglibdir'])
  ).stdout.trim();
  const modules = (await readdir(pkglibdir)).filter((f) => f.endsWith('.so')).map((f) => f.slice(0, -3));
  expect(modules).toContain('basebackup_to_shell');
  const cluster = await clusters.create(label, binDir, {
    maxClients: 1,
    workloadSettings: { shared_preload_libraries: modules.join(',') },
  });
  try {
    await cluster.start();
    const client = new pg.Client(cluster.connection);
    await client.connect();
    try {
      const res = await client.query<PgSetting & { vartype: string }>(
        'SELECT name, vartype, context, short_desc, extra_desc FROM pg_settings ORDER BY name',
      );
      for (const row of res.rows) seen.add(row.name.toLowerCase());
      // Internal settings only report how the server was built or initialised: they cannot be set.
      return { major, rows: res.rows.filter((r) => r.vartype === 'string' && r.context !== 'internal') };
    } finally {
      await client.end();
    }
  } finally {
    await cluster.destroy();
    expect(processesMentioning(cluster.dir)).toEqual([]);
  }
}

describe('the refused settings cover every string setting of PostgreSQL that names a place', () => {
  it('HARMLESS and the refused settings do not overlap, and each harmless setting has its reason', () => {
    for (const [name, why] of Object.entries(HARMLESS)) {
      expect(name, 'lower case, as PostgreSQL compares names').toBe(name.toLowerCase());
      expect(refusesPath(name), `${name} is both refused and judged harmless`).toBe(false);
      expect(why.length).toBeGreaterThan(10);
    }
  });

  it.each(installs)(
    '$what: each string setting (core and the modules) is refused or judged harmless',
    async ({ what, label, binDir }) => {
      const { major, rows } = await stringSettings(binDir(), label);
      expect(what).toContain(String(major));
      // The modules' settings are there: the audit sees what a preloaded library adds.
      expect(rows.map((r) => r.name)).toContain('basebackup_to_shell.command');
      const undecided: string[] = [];
      for (const row of rows) {
        const name = row.name.toLowerCase();
        if (refusesPath(name) || HARMLESS[name] !== undefined) continue;
        const said = `${row.name}: ${row.short_desc} ${row.extra_desc ?? ''}`.trim();
        undecided.push(
          NAMES_A_PLACE.test(said)
            ? `${said} -> names a library, file, directory or command: refuse it in src/core/results/settings.ts with the reason`
            : `${said} -> undecided: refuse it in src/core/results/settings.ts, or add it to HARMLESS with the reason`,
        );
      }
      expect(undecided, `PostgreSQL ${major}`).toEqual([]);
    },
    // The first cluster start preloads every module: well under this, even on a busy runner.
    300_000,
  );

  it('every refused setting is one of the audited versions or says where it exists, every harmless one is', () => {
    expect(seen.size, 'the audits above ran').toBeGreaterThan(50);
    const unknown = REFUSED_SETTINGS.filter(
      (s) => !seen.has(s.name) && s.where === undefined && !s.name.startsWith('include'),
    ).map((s) => s.name);
    expect(unknown).toEqual([]);
    // And no harmless entry is a typo or a setting of no audited version.
    expect(Object.keys(HARMLESS).filter((name) => !seen.has(name))).toEqual([]);
  });

  it('a refused setting never reaches a server: the cluster refuses to write it, and nothing runs', async () => {
    const cluster = await clusters.create('refused', DEBIAN_15, {
      maxClients: 1,
      workloadSettings: { jit: 'on' },
      armSettings: { jit_provider: EVIL_PATH },
    });
    try {
      const started = cluster.start();
      await expect(started).rejects.toThrow(UserError);
      await expect(started).rejects.toThrow(
        `a setting of the arm: "jit_provider" takes the name of a JIT library of the install under test (llvmjit, the default), not paths, got '${EVIL_PATH}'`,
      );
      expect(await cluster.isRunning()).toBe(false);
    } finally {
      await cluster.destroy();
    }
    expect(processesMentioning(cluster.dir)).toEqual([]);
  });
});
