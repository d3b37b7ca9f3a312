/**
 * The client binaries that drove every arm (RunResult.clients, one per tool), as the reports name them:
 * with arms of different PostgreSQL releases, which pgbench measured all of them is part of the result.
 */
import type { ClientInfo } from '../../results/result-types.js';

/** "pgbench (PostgreSQL) 18.6 from /usr/lib/postgresql/18/bin"; "sysbench 1.0.20 from /usr/bin". */
export function clientText(client: ClientInfo): string {
  const version = client.version.startsWith(client.tool)
    ? client.version
    : `${client.tool} ${client.version}`;
  return `${version} from ${client.binDir}`;
}

/** The terminal report's one line: "client: pgbench (PostgreSQL) 18.6 from /usr/lib/postgresql/18/bin drove every arm". */
export function clientLines(clients: readonly ClientInfo[]): string[] {
  if (clients.length === 0) return [];
  return [`client${clients.length > 1 ? 's' : ''}: ${clients.map(clientText).join('; ')} drove every arm`];
}
