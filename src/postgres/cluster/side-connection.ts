/**
 * The extra connection pgperf opens beside a benchmark (counter snapshots, wait-event samples, backend
 * memory): named in pg_stat_activity so the samplers and the counted runs can tell it from the benchmark's
 * own backends, bounded in how long it may take to connect, and with a lost connection handed to its caller
 * (who reports it when it stops) rather than thrown as an unhandled 'error' event.
 */
import pg from 'pg';
import type { Connection } from './cluster.js';

/** How long connecting may take: the server is local and running, so seconds mean something is wrong. */
const CONNECT_TIMEOUT_MS = 10_000;

export async function openSideConnection(
  target: Connection,
  applicationName: string,
  options: { onError: (e: unknown) => void; statementTimeoutMs?: number },
): Promise<pg.Client> {
  const client = new pg.Client({
    host: target.host,
    port: target.port,
    user: target.user,
    database: target.database,
    application_name: applicationName,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(options.statementTimeoutMs !== undefined ? { statement_timeout: options.statementTimeoutMs } : {}),
  });
  client.on('error', options.onError);
  await client.connect();
  return client;
}
