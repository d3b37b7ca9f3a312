/**
 * Cold starts (workload `coldStart`): before every measured run of such a workload the arm's server is
 * restarted and the OS page cache dropped. The page cache is the machine's, not the server's: dropping it
 * empties the cached files of every process on the machine, which the run says before its rounds, as
 * `pgperf doctor` does (the `dropCaches` fact) and docs/workloads.md.
 */
import type { Workload } from '../drivers/workload.js';
import type { ColdStart } from '../core/results/steady.js';
import { dropPageCache } from '../machine/os/drop-caches.js';
import type { RunJournal } from './journal.js';
import type { RunClusters } from './run-clusters.js';

/**
 * The line a run with cold-start workloads logs before its rounds: which workloads, and that what they
 * drop is every process's page cache; undefined when no workload starts cold.
 */
export function coldStartNotice(
  workloads: readonly Pick<Workload, 'name' | 'coldStart'>[],
): string | undefined {
  const cold = workloads.filter((w) => w.coldStart).map((w) => w.name);
  if (cold.length === 0) return undefined;
  return (
    `cold start (${cold.join(', ')}): every measured run restarts its server and drops the OS page cache, ` +
    'which is machine-wide: every process on this machine loses its cached files (docs/workloads.md#cold-starts)'
  );
}

/** What a cold start does when the page cache cannot be dropped; said once per run, in its warnings. */
const NO_DROP_CACHES =
  'cold start: the OS page cache could not be dropped, so cold runs start with only their shared buffers evicted (their reads may come from the page cache)';

/**
 * A cold start: the server restarted (its shutdown checkpoint writes and fsyncs everything; the new
 * postmaster's shared buffers are empty), then the OS page cache dropped where pgperf may.
 */
export async function coldStart(
  cluster: ReturnType<RunClusters['of']>,
  journal: RunJournal,
): Promise<ColdStart> {
  await cluster.stop();
  await cluster.start();
  const drop = await dropPageCache();
  if (!drop.dropped) {
    const message = `${NO_DROP_CACHES}: ${drop.reason}`;
    if (!journal.result.warnings.some((w) => w.startsWith(NO_DROP_CACHES))) journal.warn(message);
  }
  return { restarted: true, pageCacheDropped: drop.dropped };
}
