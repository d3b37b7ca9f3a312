/**
 * The PostgreSQL store against a real server started here (initdb into a temp dir, unix socket for the
 * test's admin connection, 127.0.0.1 with password auth for the store): the shared contract, plus
 * migrations (two at once, a newer schema), a dropped connection, the connection errors a user meets, and
 * leftover or altered tables of another shape (refused naming the table, the columns and the fix).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { environmentFingerprint, workloadHash } from '../../src/machine/fingerprint.js';
import { openStore } from '../../src/store/open/open-store.js';
import { MIGRATIONS, PgStore } from '../../src/store/postgres/pg-store.js';
import { UserError } from '../../src/core/util/errors.js';
import { runCli } from '../helpers/cli.js';
import { startTestPgServer, type TestPgServer } from '../../testkit/pg-server.js';
import { describeStoreContract } from './store-contract.js';
import { fixtureVariant, minutesAfter, readFixture } from '../../testkit/store-fixture.js';

/** A password with characters that need percent-encoding in a URL. */
const PASSWORD = 's3cr3t:p@ss/w0rd';
const LIMITED_PASSWORD = 'l1mited-Secret';
let server: TestPgServer;
let databases = 0;

beforeAll(async () => {
  server = await startTestPgServer('store-pg');
  await server.admin(`CREATE ROLE pgperf_app LOGIN PASSWORD '${PASSWORD}'`);
  await server.admin(`CREATE ROLE pgperf_limited LOGIN PASSWORD '${LIMITED_PASSWORD}'`);
});
afterAll(async () => {
  await server?.stop();
});

/** A new database owned by the store's role, and the URL of the store in it. */
async function freshDatabase(
  owner = 'pgperf_app',
  password = PASSWORD,
): Promise<{ db: string; url: string }> {
  const db = `store_${++databases}`;
  await server.admin(`CREATE DATABASE ${db} OWNER ${owner}`);
  return { db, url: `postgresql://${owner}:${encodeURIComponent(password)}@127.0.0.1:${server.port}/${db}` };
}

describeStoreContract('PostgreSQL', async () => {
  const { url } = await freshDatabase();
  return {
    spec: url,
    secret: PASSWORD,
    open: (warn = () => {}) => openStore(url, { home: '/nonexistent', warn }),
  };
});

describe('PostgreSQL store', () => {
  const fixture = readFixture();

  it('keeps runs, environments, builds, cells and samples in their tables', async () => {
    const { db, url } = await freshDatabase();
    const store = await PgStore.connect(url, { warn: () => {} });
    try {
      const run = fixtureVariant(fixture, {
        base: { ref: 'master', sha: 'a'.repeat(40) },
        head: { ref: 'pr-1', sha: 'b'.repeat(40) },
      });
      const saved = await store.save(run);
      const q = async (sql: string) => (await server.admin(sql, [], db)).rows;
      expect(await q('SELECT version, name FROM pgperf_schema_migrations')).toEqual(
        MIGRATIONS.map((m) => ({ version: m.version, name: m.name })),
      );
      const fp = environmentFingerprint(run);
      expect(await q('SELECT fingerprint, facts FROM pgperf_environments')).toEqual([
        { fingerprint: fp.id, facts: fp.facts },
      ]);
      expect(
        await q('SELECT run_id, status, fingerprint, workloads, cell_count, sample_count FROM pgperf_runs'),
      ).toEqual([
        {
          run_id: saved.id,
          status: 'complete',
          fingerprint: fp.id,
          workloads: ['smoke', 'select-only'],
          cell_count: 9,
          sample_count: 54,
        },
      ]);
      expect(await q('SELECT arm, ref, sha FROM pgperf_builds ORDER BY arm_no')).toEqual([
        { arm: 'base', ref: 'master', sha: 'a'.repeat(40) },
        { arm: 'head', ref: 'pr-1', sha: 'b'.repeat(40) },
      ]);
      const cells = await q(
        'SELECT workload, clients, workload_hash, fingerprint FROM pgperf_cells ORDER BY cell_no',
      );
      expect(cells).toHaveLength(9);
      expect(cells[0]).toEqual({
        workload: fixture.plan.cells[0]!.workload,
        clients: fixture.plan.cells[0]!.clients,
        workload_hash: workloadHash(fixture.workloads[fixture.plan.cells[0]!.workload]),
        fingerprint: fp.id,
      });
      const samples = await q(
        `SELECT c.workload, c.clients, s.arm, s.round, s.status, (s.metrics->>'tps')::float8 AS tps
         FROM pgperf_samples s JOIN pgperf_cells c USING (run_id, cell_no) ORDER BY s.sample_no`,
      );
      expect(samples).toEqual(
        fixture.samples.map((s) => ({
          workload: s.workload,
          clients: s.clients,
          arm: s.arm,
          round: s.round,
          status: s.status,
          tps: s.metrics.tps,
        })),
      );
      // The document is kept verbatim: exported byte for byte as saved.
      const stored = { ...run, runId: saved.id, fingerprint: fp };
      expect(await q('SELECT document::text AS d FROM pgperf_runs')).toEqual([{ d: JSON.stringify(stored) }]);
    } finally {
      await store.close();
    }
  });

  it('two migrators at once both succeed and apply each migration once', async () => {
    const { db, url } = await freshDatabase();
    const infos: string[] = [];
    const stores = await Promise.all(
      [1, 2, 3].map(() => PgStore.connect(url, { warn: () => {}, info: (m) => infos.push(m) })),
    );
    try {
      expect(infos.filter((m) => m.includes('applied schema migration 1'))).toHaveLength(1);
      const rows = (await server.admin('SELECT version FROM pgperf_schema_migrations', [], db)).rows;
      expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
      await Promise.all(
        stores.map((s, i) => s.save(fixtureVariant(fixture, { startedAt: minutesAfter(i) }))),
      );
      expect(await stores[0]!.list()).toHaveLength(3);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('a store migrated by a newer pgperf is refused, naming the version', async () => {
    const { db, url } = await freshDatabase();
    await (await PgStore.connect(url, { warn: () => {} })).close();
    await server.admin(`INSERT INTO pgperf_schema_migrations (version, name) VALUES (999, 'future')`, [], db);
    const err = await PgStore.connect(url, { warn: () => {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toBe(
      `PostgreSQL store postgresql://pgperf_app:***@127.0.0.1:${server.port}/${db} has store schema version 999, ` +
        `newer than this pgperf knows (${MIGRATIONS.length}); upgrade pgperf`,
    );
  });

  it('a leftover pgperf_runs table of another shape is refused naming it, the columns and the fix; no stack', async () => {
    const { db, url } = await freshDatabase();
    await server.admin(
      'CREATE TABLE pgperf_runs (id serial PRIMARY KEY, payload text NOT NULL, created timestamptz)',
      [],
      db,
    );
    await server.admin('ALTER TABLE pgperf_runs OWNER TO pgperf_app', [], db);
    const where = `postgresql://pgperf_app:\\*\\*\\*@127\\.0\\.0\\.1:${server.port}/${db}`;
    const err = await PgStore.connect(url, { warn: () => {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^the results store ${where} has a table named like pgperf's that its migrations did not create \\(pgperf_schema_migrations records none\\): ` +
          'pgperf_runs: missing run_id, saved_at, .*, document; extra NOT NULL column without a default: payload ' +
          '\\(expected the columns run_id text, saved_at timestamp with time zone, .*, document json; found id integer, payload text, created timestamp with time zone\\)\\. ' +
          'Rename or drop it \\(e\\.g\\. ALTER TABLE pgperf_runs RENAME TO pgperf_runs_old; or DROP TABLE pgperf_runs; if it holds nothing to keep\\), or give the store a database of its own$',
      ),
    );
    expect((err as Error).message).not.toContain(PASSWORD);
    // Nothing was created beside it: the refusal came before the migration.
    const tables = await server.admin(
      "SELECT string_agg(relname, ',' ORDER BY relname) AS t FROM pg_class WHERE relname LIKE 'pgperf_%' AND relkind = 'r'",
      [],
      db,
    );
    expect(tables.rows[0]!.t).toBe('pgperf_runs,pgperf_schema_migrations');

    // Through the CLI: one line, exit 2, no stack trace.
    const ran = await runCli(['store', 'list', '--store', url]);
    expect(ran.code, ran.stderr).toBe(2);
    expect(ran.stderr).toMatch(/table named like pgperf's .*pgperf_runs: missing run_id/);
    expect(ran.stderr).not.toMatch(/^\s+at /m);
    expect(ran.stderr).not.toMatch(/internal error/i);
  });

  it('a pgperf table altered after the migrations is refused on connect, naming the columns', async () => {
    const { db, url } = await freshDatabase();
    await (await PgStore.connect(url, { warn: () => {} })).close();
    await server.admin('ALTER TABLE pgperf_runs DROP COLUMN summary', [], db);
    await server.admin('ALTER TABLE pgperf_runs ALTER COLUMN cell_count TYPE bigint', [], db);
    const err = await PgStore.connect(url, { warn: () => {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(
      /^the results store \S+: table pgperf_runs does not have the shape pgperf needs: missing summary; cell_count is bigint, not integer \(expected the columns run_id text, .* summary jsonb, document json; found run_id text, .*cell_count bigint, sample_count integer, document json\)\. Rename or drop it/,
    );
    await server.admin('DROP TABLE pgperf_cells', [], db);
    await server.admin('ALTER TABLE pgperf_runs ADD COLUMN summary jsonb', [], db);
    await server.admin('ALTER TABLE pgperf_runs ALTER COLUMN cell_count TYPE integer', [], db);
    const gone = await PgStore.connect(url, { warn: () => {} }).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(UserError);
    expect((gone as Error).message).toMatch(
      /has no table pgperf_cells, although pgperf_schema_migrations records its migrations as applied \(expected the columns run_id text, cell_no integer, .*\)\. Drop the pgperf_\* tables to start the store afresh/,
    );
  });

  it('a leftover pgperf_schema_migrations of another shape is refused before it is read', async () => {
    const { db, url } = await freshDatabase();
    await server.admin('CREATE TABLE pgperf_schema_migrations (id text)', [], db);
    await server.admin('ALTER TABLE pgperf_schema_migrations OWNER TO pgperf_app', [], db);
    const err = await PgStore.connect(url, { warn: () => {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(
      /table pgperf_schema_migrations does not have the shape pgperf needs: missing version, name, applied_at \(expected the columns version integer, name text, applied_at timestamp with time zone; found id text\)/,
    );
  });

  it('a stored document of a newer schema version is refused by load', async () => {
    const { db, url } = await freshDatabase();
    const store = await PgStore.connect(url, { warn: () => {} });
    try {
      const saved = await store.save(fixture);
      await server.admin(
        `UPDATE pgperf_runs SET schema_version = 2, document = jsonb_set(document::jsonb, '{schemaVersion}', '2')::json`,
        [],
        db,
      );
      await expect(store.load(saved.id)).rejects.toThrow(
        new RegExp(
          `run ${saved.id} in PostgreSQL store .*: schemaVersion 2 is newer than this pgperf reads \\(1\\)`,
        ),
      );
    } finally {
      await store.close();
    }
  });

  it('a dropped connection is retried on a new one: idle, and in the middle of a save', async () => {
    const { db, url } = await freshDatabase();
    const warnings: string[] = [];
    const store = await PgStore.connect(url, { warn: (m) => warnings.push(m), backoffMs: 50 });
    const backends = `SELECT pid FROM pg_stat_activity WHERE datname = '${db}' AND application_name = 'pgperf'`;
    try {
      const first = await store.save(fixtureVariant(fixture, { startedAt: minutesAfter(1) }));
      // Idle connection killed between operations.
      const killed = await server.admin(`SELECT pg_terminate_backend(pid) AS ok FROM (${backends}) b`);
      expect(killed.rows.length).toBeGreaterThan(0);
      expect((await store.list()).map((r) => r.id)).toEqual([first.id]);

      // Killed while the save waits for a row lock that the test holds: the save must retry.
      const blocker = await import('pg').then(
        (m) =>
          new m.default.Client({ host: server.socketDir, port: server.port, user: 'postgres', database: db }),
      );
      await blocker.connect();
      try {
        await blocker.query('BEGIN');
        await blocker.query('SELECT 1 FROM pgperf_runs WHERE run_id = $1 FOR UPDATE', [first.id]);
        const saving = store.save(fixtureVariant(fixture, { startedAt: minutesAfter(1), status: 'failed' }));
        let waiting: number[] = [];
        for (let i = 0; i < 200 && waiting.length === 0; i++) {
          await new Promise((r) => setTimeout(r, 25));
          waiting = (await server.admin(`${backends} AND wait_event_type = 'Lock'`)).rows.map(
            (r) => r.pid as number,
          );
        }
        expect(waiting).toHaveLength(1);
        await server.admin('SELECT pg_terminate_backend($1)', [waiting[0]]);
        await blocker.query('ROLLBACK');
        const saved = await saving;
        expect(saved.id).toBe(first.id);
      } finally {
        await blocker.end();
      }
      expect(
        warnings.some((w) => /save run .*connection to PostgreSQL store .* was lost .* retrying/.test(w)),
      ).toBe(true);
      expect(warnings.join('\n')).not.toContain(PASSWORD);
      const loaded = await store.load(first.id);
      expect(loaded.status).toBe('failed');
      expect(loaded.samples).toHaveLength(54);
    } finally {
      await store.close();
    }
  });

  it('a user without CREATE is told which privilege is missing', async () => {
    const { url } = await freshDatabase('postgres');
    const limited = url.replace(/^postgresql:\/\/[^@]+@/, `postgresql://pgperf_limited:${LIMITED_PASSWORD}@`);
    const err = await PgStore.connect(limited, { warn: () => {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    const message = (err as Error).message;
    expect(message).toMatch(
      /^the database user "pgperf_limited" lacks a privilege the results store postgresql:\/\/pgperf_limited:\*\*\*@127\.0\.0\.1:\d+\/store_\d+ needs to apply the store schema: permission denied for schema public; grant it \(GRANT CREATE ON SCHEMA public TO pgperf_limited\)/,
    );
    expect(message).not.toContain(LIMITED_PASSWORD);
  });

  it('a wrong password, an unreachable server and an unparseable URL: clear errors, no password', async () => {
    const { db } = await freshDatabase();
    const wrong = `postgresql://pgperf_app:not-${encodeURIComponent(PASSWORD)}@127.0.0.1:${server.port}/${db}`;
    const auth = (await PgStore.connect(wrong, { warn: () => {} }).catch((e: unknown) => e)) as Error;
    expect(auth).toBeInstanceOf(UserError);
    expect(auth.message).toBe(
      `cannot log in to the results store postgresql://pgperf_app:***@127.0.0.1:${server.port}/${db} as "pgperf_app": ` +
        'password authentication failed for user "pgperf_app". Check the user name and password in the URL ' +
        "(or PGPASSWORD, ~/.pgpass) and the server's pg_hba.conf",
    );

    const deadPort = await import('../../src/postgres/cluster/cluster.js').then((m) => m.freePort());
    const warnings: string[] = [];
    const unreachable = (await PgStore.connect(
      `postgresql://pgperf_app:${encodeURIComponent(PASSWORD)}@127.0.0.1:${deadPort}/${db}`,
      { warn: (m) => warnings.push(m), backoffMs: 10 },
    ).catch((e: unknown) => e)) as Error;
    expect(unreachable).toBeInstanceOf(UserError);
    expect(unreachable.message).toMatch(
      new RegExp(
        `^cannot reach the results store postgresql://pgperf_app:\\*\\*\\*@127\\.0\\.0\\.1:${deadPort}/${db} \\(apply the store schema\\): .*ECONNREFUSED.*Check that PostgreSQL runs there`,
      ),
    );
    for (const text of [unreachable.message, ...warnings]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(encodeURIComponent(PASSWORD));
    }

    for (const bad of ['postgresql://app:hunter2@db:99999999/x', 'postgresql://app:hunter2@[::1/x']) {
      const err = (await openStore(bad, { home: '/', warn: () => {} }).catch((e: unknown) => e)) as Error;
      expect(err).toBeInstanceOf(UserError);
      expect(err.message).toContain("store URL 'postgresql://app:***@");
      expect(err.message).not.toContain('hunter2');
    }
  });

  it('connects over the unix socket too (host in the query string)', async () => {
    const { db } = await freshDatabase();
    const url = `postgresql://postgres@/${db}?host=${encodeURIComponent(server.socketDir)}&port=${server.port}`;
    const store = await openStore(url, { home: '/', warn: () => {} });
    try {
      const saved = await store.save(fixture);
      expect((await store.load(saved.id)).samples).toHaveLength(54);
    } finally {
      await store.close();
    }
  });
});
