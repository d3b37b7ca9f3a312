/**
 * The PostgreSQL store, shared by a fleet of runners: `--store postgresql://user:pass@host/db`.
 * The only module that imports `pg`.
 *
 * Tables (created by versioned migrations, recorded in pgperf_schema_migrations):
 *   pgperf_environments  fingerprint id -> facts (jsonb)
 *   pgperf_runs          one row per run: indexed columns for listing and filtering, and the results
 *                        document, verbatim (json: exported byte for byte as it was saved)
 *   pgperf_builds        one row per arm of a run: arm label, ref, sha, and the build record (options,
 *                        compiler) when pgperf built the arm
 *   pgperf_cells         one row per cell of a run: workload, clients, workload definition hash, fingerprint
 *   pgperf_samples       one row per sample: run, cell, arm, round, attempt, status, metrics (jsonb), for
 *                        queries across runs (trends, baselines); the full sample is in the document
 *
 * The document is `json`, not `jsonb`: converting a 64-cell x 30-round run (2.5 MB of JSON, 15 MB with
 * a minute of progress points per sample) to jsonb alone takes most of the save budget, and nothing
 * queries inside it; what queries need is in the columns and in pgperf_samples.metrics.
 *
 * Migrations run on connect under an advisory lock, so runners connecting at once wait for each other
 * and each applies only what is missing. A save is one transaction (upsert of the run row, then its
 * child rows deleted and inserted anew with one multi-row statement per table). Every query is
 * parameterised. Operations are idempotent and retried on a fresh connection when the connection
 * drops. The connection string is never printed: messages carry it masked (postgresql://user:***@host/db).
 */
import pg from 'pg';
import { workloadHash } from '../../machine/fingerprint.js';
import type { RunResult } from '../../core/results/result-types.js';
import { cellId } from '../../core/results/result-types.js';
import { UserError, errorMessage } from '../../core/util/errors.js';
import { maskUrl } from '../mask-url.js';
import { parseResults } from '../read-results.js';
import {
  checkRunId,
  checkSchemaVersion,
  documentToStore,
  resolveFilter,
  summarize,
  type ResultStore,
  type RunFilter,
  type StoredRun,
} from '../store.js';

export interface PgStoreOptions {
  /** Reports retries after a dropped connection. */
  warn: (message: string) => void;
  /** Reports what the store did on its own (a schema migration applied). */
  info?: (message: string) => void;
  /** Tries per operation when the connection drops (default 4). */
  attempts?: number;
  /** Wait before the first retry, doubled for each further one (default 200 ms). */
  backoffMs?: number;
  /** Seconds to wait for a connection (default 10). */
  connectTimeoutS?: number;
}

interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Schema changes in order; append, never edit an applied one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'runs, environments, builds, cells, samples',
    sql: `
      CREATE TABLE pgperf_environments (
        fingerprint text PRIMARY KEY,
        facts jsonb NOT NULL,
        first_seen timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE pgperf_runs (
        run_id text PRIMARY KEY,
        saved_at timestamptz NOT NULL,
        started_at timestamptz NOT NULL,
        status text NOT NULL,
        schema_version integer NOT NULL,
        fingerprint text NOT NULL REFERENCES pgperf_environments,
        repository text,
        workloads text[] NOT NULL,
        cell_count integer NOT NULL,
        sample_count integer NOT NULL,
        summary jsonb NOT NULL,
        document json NOT NULL
      );
      CREATE INDEX pgperf_runs_started ON pgperf_runs (started_at DESC, run_id COLLATE "C" DESC);
      CREATE INDEX pgperf_runs_fingerprint ON pgperf_runs (fingerprint, started_at DESC);
      CREATE INDEX pgperf_runs_workloads ON pgperf_runs USING gin (workloads);
      CREATE TABLE pgperf_builds (
        run_id text NOT NULL REFERENCES pgperf_runs ON DELETE CASCADE,
        arm_no integer NOT NULL,
        arm text NOT NULL,
        ref text,
        sha text,
        build jsonb,
        PRIMARY KEY (run_id, arm_no)
      );
      CREATE INDEX pgperf_builds_sha ON pgperf_builds (sha text_pattern_ops);
      CREATE INDEX pgperf_builds_ref ON pgperf_builds (ref);
      CREATE TABLE pgperf_cells (
        run_id text NOT NULL REFERENCES pgperf_runs ON DELETE CASCADE,
        cell_no integer NOT NULL,
        workload text NOT NULL,
        clients integer NOT NULL,
        workload_hash text NOT NULL,
        fingerprint text NOT NULL,
        PRIMARY KEY (run_id, cell_no)
      );
      CREATE INDEX pgperf_cells_series ON pgperf_cells (workload, clients, fingerprint);
      -- No foreign keys on samples: a save deletes and inserts a run's samples itself, in one transaction,
      -- and 3,840 per-row foreign-key checks would double the cost of saving a big run.
      CREATE TABLE pgperf_samples (
        run_id text NOT NULL,
        sample_no integer NOT NULL,
        cell_no integer,
        arm text NOT NULL,
        round integer NOT NULL,
        attempt integer NOT NULL,
        status text NOT NULL,
        metrics jsonb NOT NULL,
        PRIMARY KEY (run_id, sample_no)
      );
      CREATE INDEX pgperf_samples_cell ON pgperf_samples (run_id, cell_no, arm);
      -- lz4 compresses the big documents several times faster than the default pglz (PostgreSQL 14+,
      -- when built with lz4; otherwise the default stays).
      DO $$
      BEGIN
        IF current_setting('server_version_num')::integer >= 140000 THEN
          EXECUTE 'ALTER TABLE pgperf_runs ALTER COLUMN document SET COMPRESSION lz4';
        END IF;
      EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
        NULL;
      END
      $$;
    `,
  },
];

/**
 * The columns of every pgperf table as the migrations above create them (name -> format_type), checked on
 * connect: a leftover table of the same name but another shape (another program's, a hand-made one, an
 * altered one) is refused naming it, instead of failing later inside a query.
 */
export const TABLE_COLUMNS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  pgperf_schema_migrations: { version: 'integer', name: 'text', applied_at: 'timestamp with time zone' },
  pgperf_environments: { fingerprint: 'text', facts: 'jsonb', first_seen: 'timestamp with time zone' },
  pgperf_runs: {
    run_id: 'text',
    saved_at: 'timestamp with time zone',
    started_at: 'timestamp with time zone',
    status: 'text',
    schema_version: 'integer',
    fingerprint: 'text',
    repository: 'text',
    workloads: 'text[]',
    cell_count: 'integer',
    sample_count: 'integer',
    summary: 'jsonb',
    document: 'json',
  },
  pgperf_builds: { run_id: 'text', arm_no: 'integer', arm: 'text', ref: 'text', sha: 'text', build: 'jsonb' },
  pgperf_cells: {
    run_id: 'text',
    cell_no: 'integer',
    workload: 'text',
    clients: 'integer',
    workload_hash: 'text',
    fingerprint: 'text',
  },
  pgperf_samples: {
    run_id: 'text',
    sample_no: 'integer',
    cell_no: 'integer',
    arm: 'text',
    round: 'integer',
    attempt: 'integer',
    status: 'text',
    metrics: 'jsonb',
  },
};

/** One column of an existing relation named like a pgperf table (pg_catalog). */
interface FoundColumn {
  table: string;
  /** pg_class.relkind: 'r' a table, 'p' a partitioned table, 'v' a view, ... */
  kind: string;
  column: string | null;
  type: string | null;
  not_null: boolean | null;
  has_default: boolean | null;
}

/** pg_advisory_lock key of the migrations: "pgperf" in ASCII, as a number. */
const MIGRATION_LOCK_KEY = '123589569639014';

/** Connection-level failures worth a retry on a fresh connection (SQLSTATE classes 08, 57P0x). */
const RETRYABLE_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNREFUSED',
  'ETIMEDOUT',
  '57P01', // admin_shutdown (pg_terminate_backend, a fast shutdown)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up)
]);
/** A table or column missing, of another type, or in the way (a table of another shape): 42P01, 42703, 42804, 42P07. */
const SHAPE_CODES = new Set(['42P01', '42703', '42804', '42P07']);
const RETRYABLE_MESSAGES = /Connection terminated|connection error and is not queryable|timeout expired/i;

/** Two minutes per query: saving a run with its raw samples takes well under a second on a healthy store. */
const QUERY_TIMEOUT_MS = 120_000;

export class PgStore implements ResultStore {
  readonly description: string;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly options: PgStoreOptions,
  ) {
    this.description = `PostgreSQL store ${maskUrl(url)}`;
  }

  /** The masked URL, for messages. */
  private get where(): string {
    return maskUrl(this.url);
  }

  /** Connects and brings the schema up to date; errors name the masked URL and what to check. */
  static async connect(url: string, options: PgStoreOptions): Promise<PgStore> {
    checkUrl(url);
    const pool = new pg.Pool({
      connectionString: url,
      max: 2,
      connectionTimeoutMillis: (options.connectTimeoutS ?? 10) * 1000,
      // A store that accepts and stops answering must not hold a run's end: every query has a deadline
      // (client side), and the server ends statements that run longer (server side).
      query_timeout: QUERY_TIMEOUT_MS,
      statement_timeout: QUERY_TIMEOUT_MS,
      application_name: 'pgperf',
    });
    // An idle connection that dies (server restart, pg_terminate_backend) is dropped by the pool; the
    // next operation gets a fresh one. Without a listener the error would crash the process.
    pool.on('error', () => {});
    const store = new PgStore(pool, url, options);
    try {
      await store.withClient('apply the store schema', (c) => store.migrate(c));
    } catch (e) {
      await pool.end().catch(() => {});
      throw e;
    }
    return store;
  }

  async save(result: RunResult): Promise<StoredRun> {
    const doc = documentToStore(result, 'results document', this.options.warn);
    const fingerprint = doc.fingerprint!;
    const rows = childRows(doc);
    return this.withClient(`save run ${doc.runId}`, async (c) => {
      const entry = summarize(doc, new Date().toISOString());
      await inTransaction(c, async () => {
        await c.query(
          'INSERT INTO pgperf_environments (fingerprint, facts) VALUES ($1, $2) ON CONFLICT (fingerprint) DO NOTHING',
          [fingerprint.id, JSON.stringify(fingerprint.facts)],
        );
        await c.query(
          `INSERT INTO pgperf_runs (run_id, saved_at, started_at, status, schema_version, fingerprint, repository,
             workloads, cell_count, sample_count, summary, document)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
           ON CONFLICT (run_id) DO UPDATE SET saved_at = EXCLUDED.saved_at, started_at = EXCLUDED.started_at,
             status = EXCLUDED.status, schema_version = EXCLUDED.schema_version,
             fingerprint = EXCLUDED.fingerprint, repository = EXCLUDED.repository,
             workloads = EXCLUDED.workloads, cell_count = EXCLUDED.cell_count,
             sample_count = EXCLUDED.sample_count, summary = EXCLUDED.summary, document = EXCLUDED.document`,
          [
            entry.id,
            entry.savedAt,
            entry.startedAt,
            entry.status,
            doc.schemaVersion,
            entry.fingerprint,
            entry.repository ?? null,
            entry.workloads,
            entry.cells,
            entry.samples,
            JSON.stringify(entry),
            JSON.stringify(doc),
          ],
        );
        // Children of a previous save of this run go; the new ones come in one statement per table.
        await c.query('DELETE FROM pgperf_samples WHERE run_id = $1', [entry.id]);
        await c.query('DELETE FROM pgperf_cells WHERE run_id = $1', [entry.id]);
        await c.query('DELETE FROM pgperf_builds WHERE run_id = $1', [entry.id]);
        await c.query(
          `INSERT INTO pgperf_builds (run_id, arm_no, arm, ref, sha, build)
           SELECT $1, x.arm_no, x.arm, x.ref, x.sha, x.build
           FROM jsonb_to_recordset($2::jsonb) AS x(arm_no integer, arm text, ref text, sha text, build jsonb)`,
          [entry.id, JSON.stringify(rows.builds)],
        );
        await c.query(
          `INSERT INTO pgperf_cells (run_id, cell_no, workload, clients, workload_hash, fingerprint)
           SELECT $1, x.cell_no, x.workload, x.clients, x.workload_hash, $3
           FROM jsonb_to_recordset($2::jsonb) AS x(cell_no integer, workload text, clients integer, workload_hash text)`,
          [entry.id, JSON.stringify(rows.cells), entry.fingerprint],
        );
        await c.query(
          `INSERT INTO pgperf_samples (run_id, sample_no, cell_no, arm, round, attempt, status, metrics)
           SELECT $1, x.sample_no, x.cell_no, x.arm, x.round, x.attempt, x.status, x.metrics
           FROM json_to_recordset($2::json) AS x(sample_no integer, cell_no integer, arm text, round integer,
             attempt integer, status text, metrics jsonb)`,
          [entry.id, JSON.stringify(rows.samples)],
        );
      });
      return entry;
    });
  }

  async load(id: string): Promise<RunResult> {
    checkRunId(id);
    return this.withClient(`load run ${id}`, async (c) => {
      const res = await c.query<{ document: string; schema_version: number }>(
        'SELECT document::text AS document, schema_version FROM pgperf_runs WHERE run_id = $1',
        [id],
      );
      const run = res.rows[0];
      if (!run) {
        throw new UserError(
          `no run '${id}' in ${this.description}; "pgperf store list" shows the stored runs`,
        );
      }
      const where = `run ${id} in ${this.description}`;
      checkSchemaVersion(run.schema_version, where);
      // Read back as every reader reads a document: shape and consistency checked, never quoted.
      return parseResults(run.document, where, { warn: this.options.warn });
    });
  }

  async list(filter?: RunFilter): Promise<StoredRun[]> {
    const f = resolveFilter(filter);
    const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
    return this.withClient('list runs', async (c) => {
      const res = await c.query<{ summary: StoredRun }>(
        `SELECT r.summary FROM pgperf_runs r
         WHERE ($1::text IS NULL OR left(r.fingerprint, length($1)) = $1)
           AND ($2::text IS NULL OR $2 = ANY (r.workloads))
           AND ($3::timestamptz IS NULL OR r.started_at >= $3)
           AND ($4::timestamptz IS NULL OR r.started_at < $4)
           AND ($5::text IS NULL OR EXISTS (SELECT 1 FROM pgperf_builds b WHERE b.run_id = r.run_id AND b.arm = $5))
           AND ($6::text IS NULL OR EXISTS (
             SELECT 1 FROM pgperf_builds b
             WHERE b.run_id = r.run_id AND ($5::text IS NULL OR b.arm = $5)
               AND (b.ref = $6 OR ($6 ~ '^[0-9A-Fa-f]+$' AND left(lower(b.sha), length($6)) = lower($6)))))
         ORDER BY r.started_at DESC, r.run_id COLLATE "C" DESC
         LIMIT $7`,
        [
          f.fingerprint ?? null,
          f.workload ?? null,
          iso(f.sinceMs),
          iso(f.untilMs),
          f.arm ?? null,
          f.commit ?? null,
          f.limit ?? null,
        ],
      );
      return res.rows.map((r) => r.summary);
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** Applies the missing migrations under the advisory lock; refuses a schema newer than this pgperf. */
  private async migrate(c: pg.PoolClient): Promise<void> {
    await c.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      // Checked before CREATE ... IF NOT EXISTS, which needs the CREATE privilege even when the table exists.
      const exists = await c.query<{ found: boolean }>(
        "SELECT to_regclass('pgperf_schema_migrations') IS NOT NULL AS found",
      );
      if (!exists.rows[0]?.found) {
        await c.query(`CREATE TABLE IF NOT EXISTS pgperf_schema_migrations (
          version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
      }
      // A leftover table of another shape named like ours is refused here, not by a failing query below.
      const before = await this.tableColumns(c);
      const ledger = shapeProblem('pgperf_schema_migrations', before);
      if (ledger) {
        throw new UserError(
          `the results store ${this.where}: table pgperf_schema_migrations does not have the shape pgperf needs: ${ledger}. ${fixHint(['pgperf_schema_migrations'])}`,
        );
      }
      const applied = await c.query<{ version: number }>('SELECT version FROM pgperf_schema_migrations');
      const done = new Set(applied.rows.map((r) => r.version));
      const latest = MIGRATIONS[MIGRATIONS.length - 1]!.version;
      const newest = Math.max(0, ...done);
      if (newest > latest) {
        throw new UserError(
          `${this.description} has store schema version ${newest}, newer than this pgperf knows (${latest}); upgrade pgperf`,
        );
      }
      if (done.size === 0) {
        // A fresh store: no pgperf table may exist yet (the first migration creates them all).
        const leftovers = [...new Set(before.map((r) => r.table))].filter(
          (t) => t !== 'pgperf_schema_migrations',
        );
        if (leftovers.length > 0) throw this.leftoverTables(leftovers, before);
      }
      for (const m of MIGRATIONS) {
        if (done.has(m.version)) continue;
        await inTransaction(c, async () => {
          await c.query(m.sql);
          await c.query('INSERT INTO pgperf_schema_migrations (version, name) VALUES ($1, $2)', [
            m.version,
            m.name,
          ]);
        });
        this.options.info?.(`${this.description}: applied schema migration ${m.version} (${m.name})`);
      }
      checkTableShapes(await this.tableColumns(c), this.where);
    } finally {
      await c.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
    }
  }

  /** The columns of the relations named like pgperf's tables, as the search path finds them. */
  private async tableColumns(c: pg.PoolClient): Promise<FoundColumn[]> {
    const res = await c.query<FoundColumn>(
      `SELECT t.name AS table, cl.relkind::text AS kind, a.attname AS column,
              format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null, a.atthasdef AS has_default
       FROM unnest($1::text[]) WITH ORDINALITY AS t(name, n)
       JOIN pg_class cl ON cl.oid = to_regclass(t.name)
       LEFT JOIN pg_attribute a ON a.attrelid = cl.oid AND a.attnum > 0 AND NOT a.attisdropped
       ORDER BY t.n, a.attnum`,
      [Object.keys(TABLE_COLUMNS)],
    );
    return res.rows;
  }

  /** Tables named like pgperf's in a database whose migrations table records none: not pgperf's. */
  private leftoverTables(tables: string[], found: readonly FoundColumn[]): UserError {
    const shapes = tables.map((t) => {
      const problem = shapeProblem(t, found);
      return problem ? `${t}: ${problem}` : `${t}: the shape of pgperf's, but not recorded as created by it`;
    });
    return new UserError(
      `the results store ${this.where} has ${tables.length === 1 ? 'a table' : 'tables'} named like pgperf's that its migrations did not create (pgperf_schema_migrations records none): ${shapes.join('; ')}. ` +
        `${fixHint(tables)}`,
    );
  }

  /**
   * Runs an idempotent operation on a pooled connection. When the connection drops (the server
   * restarted, the backend was terminated, the network hiccuped) the connection is discarded and the
   * operation runs again on a fresh one, a few times with growing pauses. Other errors are explained.
   */
  private async withClient<T>(what: string, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const attempts = this.options.attempts ?? 4;
    for (let attempt = 1; ; attempt++) {
      let client: pg.PoolClient | undefined;
      try {
        client = await this.pool.connect();
        // A checked-out client whose connection dies also emits 'error'; the failed query reports it.
        client.on('error', ignoreError);
        const value = await fn(client);
        client.off('error', ignoreError);
        client.release();
        return value;
      } catch (e) {
        // A connection that saw an error is not reused: its session state is unknown.
        client?.off('error', ignoreError);
        client?.release(true);
        if (e instanceof UserError) throw e;
        if (!isRetryable(e) || attempt >= attempts) throw this.explain(e, what);
        const waitMs = (this.options.backoffMs ?? 200) * 2 ** (attempt - 1);
        this.options.warn(
          `${what}: the connection to ${this.description} was lost (${this.scrub(errorMessage(e))}); ` +
            `retrying on a new connection in ${waitMs} ms (attempt ${attempt + 1} of ${attempts})`,
        );
        await new Promise((r) => setTimeout(r, waitMs));
      }
    }
  }

  /** A user-facing error for a database failure, with the URL masked and the password scrubbed. */
  private explain(e: unknown, what: string): Error {
    const err = e as { code?: string; message?: string };
    const code = err.code ?? '';
    const message = this.scrub(errorMessage(e));
    const where = maskUrl(this.url);
    const user = userOf(this.url);
    if (code === '28P01' || code === '28000') {
      return new UserError(
        `cannot log in to the results store ${where}${user ? ` as "${user}"` : ''}: ${message}. ` +
          "Check the user name and password in the URL (or PGPASSWORD, ~/.pgpass) and the server's pg_hba.conf",
      );
    }
    if (code === '3D000') {
      return new UserError(
        `the results store ${where}: ${message}. Create it first (createdb) or fix the database name`,
      );
    }
    if (code === '42501') {
      const hint = /schema/i.test(message)
        ? `grant it (GRANT CREATE ON SCHEMA public TO ${user || 'the user'}), or let a user who may create tables connect once so the pgperf tables exist`
        : `grant ${user || 'the user'} SELECT, INSERT, UPDATE and DELETE on the pgperf_* tables`;
      return new UserError(
        `the database user${user ? ` "${user}"` : ''} lacks a privilege the results store ${where} needs to ${what}: ${message}; ${hint}`,
      );
    }
    if (SHAPE_CODES.has(code)) {
      // The tables were checked on connect; someone changed them since (or another program uses them).
      return new UserError(
        `the results store ${where}: ${what} failed: ${message} (SQLSTATE ${code}): the pgperf_* tables no longer have the shape this pgperf created; ` +
          'connect again to have them checked, and rename or drop a table of another shape (or give the store a database of its own)',
      );
    }
    if (
      isRetryable(e) ||
      /ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|ENOENT|connect/i.test(`${code} ${message}`)
    ) {
      return new UserError(
        `cannot reach the results store ${where} (${what}): ${message}. ` +
          'Check that PostgreSQL runs there and accepts connections (host, port, socket directory, firewall)',
      );
    }
    return new Error(
      `results store ${where}: ${what} failed: ${message}${code ? ` (SQLSTATE ${code})` : ''}`,
    );
  }

  /** The message with the password (plain or URL-encoded) replaced by ***. */
  private scrub(message: string): string {
    let out = message.split(this.url).join(maskUrl(this.url));
    const password = passwordOf(this.url);
    if (password) {
      for (const p of new Set([password, encodeURIComponent(password)])) out = out.split(p).join('***');
    }
    return out;
  }
}

/** How to get a leftover table out of the way, for `tables`. */
function fixHint(tables: readonly string[]): string {
  const first = tables[0]!;
  return (
    `Rename or drop ${tables.length === 1 ? 'it' : 'them'} (e.g. ALTER TABLE ${first} RENAME TO ${first}_old; ` +
    `or DROP TABLE ${first}; if it holds nothing to keep), or give the store a database of its own`
  );
}

/** "run_id text, saved_at timestamp with time zone, ...". */
function describeColumns(columns: ReadonlyArray<readonly [string, string]>): string {
  return columns.map(([name, type]) => `${name} ${type}`).join(', ') || 'none';
}

/**
 * What is wrong with the relation `table` among `found` compared with TABLE_COLUMNS: not a table, columns
 * missing or of another type, or an extra column an insert would fail on (NOT NULL without a default);
 * undefined when it has pgperf's shape (or does not exist).
 */
function shapeProblem(table: string, found: readonly FoundColumn[]): string | undefined {
  const rows = found.filter((r) => r.table === table);
  if (rows.length === 0) return undefined;
  const expected = Object.entries(TABLE_COLUMNS[table]!);
  const kind = rows[0]!.kind;
  const columns = rows
    .filter((r): r is FoundColumn & { column: string; type: string } => r.column !== null && r.type !== null)
    .map((r) => [r.column, r.type] as const);
  const shape = `expected the columns ${describeColumns(expected)}; found ${describeColumns(columns)}`;
  if (kind !== 'r' && kind !== 'p') {
    const what = {
      v: 'a view',
      m: 'a materialized view',
      f: 'a foreign table',
      S: 'a sequence',
      i: 'an index',
    }[kind];
    return `it is ${what ?? `a relation of kind '${kind}'`}, not a table (${shape})`;
  }
  const types = new Map(columns);
  const missing = expected.filter(([name]) => !types.has(name)).map(([name]) => name);
  const retyped = expected
    .filter(([name, type]) => types.has(name) && types.get(name) !== type)
    .map(([name, type]) => `${name} is ${types.get(name)}, not ${type}`);
  const blocking = rows
    .filter((r) => r.column !== null && !(r.column in TABLE_COLUMNS[table]!) && r.not_null && !r.has_default)
    .map((r) => r.column!);
  const wrong = [
    missing.length ? `missing ${missing.join(', ')}` : '',
    ...retyped,
    blocking.length
      ? `extra NOT NULL column${blocking.length > 1 ? 's' : ''} without a default: ${blocking.join(', ')}`
      : '',
  ].filter(Boolean);
  return wrong.length ? `${wrong.join('; ')} (${shape})` : undefined;
}

/**
 * Refuses a store whose pgperf tables (after the migrations) are missing or of another shape, naming the
 * table, the columns expected and found, and how to fix it.
 */
function checkTableShapes(found: readonly FoundColumn[], where: string): void {
  for (const table of Object.keys(TABLE_COLUMNS)) {
    if (!found.some((r) => r.table === table)) {
      throw new UserError(
        `the results store ${where} has no table ${table}, although pgperf_schema_migrations records its migrations as applied (expected the columns ${describeColumns(Object.entries(TABLE_COLUMNS[table]!))}). ` +
          'Drop the pgperf_* tables to start the store afresh (their runs are lost: export them first with pgperf store export), or give the store a database of its own',
      );
    }
    const problem = shapeProblem(table, found);
    if (problem) {
      throw new UserError(
        `the results store ${where}: table ${table} does not have the shape pgperf needs: ${problem}. ${fixHint([table])}`,
      );
    }
  }
}

/** Rows for the child tables of one run. */
function childRows(doc: RunResult) {
  const builds = doc.arms.map((arm, i) => {
    const b: { ref?: unknown; sha?: unknown } = arm.build ?? {};
    const source =
      arm.label === 'base' ? doc.source?.base : arm.label === 'head' ? doc.source?.head : undefined;
    return {
      arm_no: i,
      arm: arm.label,
      ref: typeof b.ref === 'string' ? b.ref : (source?.ref ?? null),
      sha: typeof b.sha === 'string' ? b.sha : (source?.sha ?? null),
      build: arm.build ?? null,
    };
  });
  const cellNo = new Map(doc.plan.cells.map((c, i) => [cellId(c), i]));
  const cells = doc.plan.cells.map((c, i) => ({
    cell_no: i,
    workload: c.workload,
    clients: c.clients,
    workload_hash: workloadHash(doc.workloads?.[c.workload] ?? null),
  }));
  const samples = doc.samples.map((s, i) => ({
    sample_no: i,
    cell_no: cellNo.get(cellId(s)) ?? null,
    arm: s.arm,
    round: s.round,
    attempt: s.attempt ?? 1,
    status: s.status,
    metrics: s.metrics,
  }));
  return { builds, cells, samples };
}

async function inTransaction<T>(c: pg.PoolClient, fn: () => Promise<T>): Promise<T> {
  await c.query('BEGIN');
  try {
    const value = await fn();
    await c.query('COMMIT');
    return value;
  } catch (e) {
    await c.query('ROLLBACK').catch(() => {});
    throw e;
  }
}

function ignoreError(): void {}

function isRetryable(e: unknown): boolean {
  const err = e as { code?: string; message?: string } | null;
  if (!err) return false;
  if (err.code && RETRYABLE_CODES.has(err.code)) return true;
  if (err.code && err.code.startsWith('08')) return true;
  return RETRYABLE_MESSAGES.test(err.message ?? '');
}

/** Refuses a store URL that does not parse, naming it with the password masked. */
function checkUrl(url: string): void {
  let parsed: URL;
  try {
    // libpq (and pg) accept an empty host ("postgresql://user@/db?host=/socket/dir"); WHATWG URL does not.
    parsed = new URL(url.replace('@/', '@localhost/'));
  } catch {
    throw new UserError(
      `store URL '${maskUrl(url)}' does not parse; expected postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE ` +
        '(percent-encode special characters in the password)',
    );
  }
  if (!/^postgres(ql)?:$/.test(parsed.protocol)) {
    throw new UserError(`store URL '${maskUrl(url)}' must start with postgresql:// or postgres://`);
  }
  if (parsed.port !== '' && !(Number(parsed.port) > 0)) {
    throw new UserError(`store URL '${maskUrl(url)}' has an invalid port '${parsed.port}'`);
  }
}

function userOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).username);
  } catch {
    return '';
  }
}

function passwordOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return '';
  }
}
