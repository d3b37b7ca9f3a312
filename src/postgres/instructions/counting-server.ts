/**
 * What makes a counting server's counts repeat: no background work, the same address-space layout on every
 * start, and every page of the data set in shared buffers before the first counted run. Each removes a
 * cost that lands on one run and not the other, which the difference of the short and the long run would
 * not cancel.
 */
import { probeOptions, type ProcessRunner } from '../../machine/os/process.js';
import type { PgCluster } from '../cluster/cluster.js';

/**
 * No background work on the counting servers: an autovacuum of a system catalog invalidates the relcache
 * init file, and the next backend rebuilds it (about 2 million instructions, seen on one short run in three),
 * which does not cancel in the difference of the two runs. An arm's own setting still wins.
 */
export const QUIET_SETTINGS: Readonly<Record<string, string>> = { autovacuum: 'off' };

/** `setarch -R` (ADDR_NO_RANDOMIZE for the command and its children) where it runs, else nothing. */
export async function fixedLayoutPrefix(runner: ProcessRunner, signal?: AbortSignal): Promise<string[]> {
  const probe = await runner.run('setarch', ['-R', 'true'], probeOptions(signal)).catch(() => undefined);
  signal?.throwIfAborted();
  return probe?.exitCode === 0 ? ['setarch', '-R'] : [];
}

/**
 * Every table and index of the data set into shared buffers, so no counted run pays for reading a page in
 * (that cost falls on the first transactions to touch each page, and would not cancel in the difference).
 * False when pg_prewarm (contrib) is not installed.
 */
export async function prewarm(cluster: Pick<PgCluster, 'psql'>): Promise<boolean> {
  try {
    await cluster.psql('CREATE EXTENSION IF NOT EXISTS pg_prewarm');
  } catch {
    return false;
  }
  await cluster.psql(
    "SELECT sum(pg_prewarm(c.oid)) FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'i')",
  );
  return true;
}
