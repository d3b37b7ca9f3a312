/**
 * How long a counted run may take. Base's runs have an absolute limit; a head's run of as many transactions
 * may take a multiple of base's, so a head whose transactions do far more work (a sequential scan in every
 * query, under cachegrind) is known as too slow to count in seconds, and its timed rounds decide. A load
 * spike that starts after base's runs slows the head just as much: before a head is given up, base's run is
 * timed again, and a head on a runner that got slower is retried against that.
 */
import type { CountingDriver } from './counted-runs.js';
import type { PgCluster } from '../../postgres/cluster/cluster.js';
import type { ArmSpec } from '../run-loop.js';

/** The client count of every counted run: one backend, so the count is the backend's own work. */
export const COUNTED_CLIENTS = 1;
/** The application name the counted runs connect with: their backends are found by it in the server log. */
export const COUNTED_APPLICATION = 'pgperf-counted';
/** The longest one counted run may take (a normal one takes seconds, under cachegrind too). */
export const COUNTED_RUN_LIMIT_S = 180;
/** A head's counted run may take this many times base's run of as many transactions... */
const HEAD_SLOWDOWN_LIMIT = 20;
/**
 * ...but never less than this: a loaded runner slows one run many times over (a CI machine running several
 * cachegrind servers at once lost a head's count at a 45 s floor whose base had taken 3 s).
 */
const MIN_COUNTED_LIMIT_S = 90;

/**
 * A head past its limit is retried only when base's run, timed again, gives a limit this many times the
 * first: a runner that got that much slower, not the noise of a loaded one (a head that turns every query
 * into a sequential scan would otherwise be retried, and cost its limit twice, on any small slowdown).
 */
const RETRY_FACTOR = 1.5;

/** A counted run stopped at its limit: the arm's transactions are too slow to count. */
export class TooSlowToCount extends Error {}

interface CountedServer {
  arm: Pick<ArmSpec, 'label'>;
  cluster: PgCluster;
}

/**
 * One counted run of `transactions` at the counted client count; throws when it fails, and TooSlowToCount
 * when it takes longer than `limitS` (the run is stopped).
 */
export async function runCounted(
  driver: Pick<CountingDriver, 'runTransactions'>,
  server: CountedServer,
  transactions: number,
  seed: number,
  signal: AbortSignal | undefined,
  limitS = COUNTED_RUN_LIMIT_S,
): Promise<void> {
  const limit = AbortSignal.timeout(limitS * 1000);
  try {
    await driver.runTransactions(server.cluster, {
      clients: COUNTED_CLIENTS,
      transactions,
      seed,
      applicationName: COUNTED_APPLICATION,
      signal: signal ? AbortSignal.any([signal, limit]) : limit,
    });
  } catch (e) {
    if (!limit.aborted || signal?.aborted) throw e;
    throw new TooSlowToCount(
      `${transactions} counted transactions took over ${limitS} s on arm ${server.arm.label}: too slow to count (each transaction does far more work there); the timed rounds decide`,
    );
  }
}

/** The limit of a head's counted run, from base's run of as many transactions (undefined: not timed yet). */
export function countedRunLimitS(baseS: number | undefined): number {
  if (baseS === undefined) return COUNTED_RUN_LIMIT_S;
  return Math.min(COUNTED_RUN_LIMIT_S, Math.max(MIN_COUNTED_LIMIT_S, HEAD_SLOWDOWN_LIMIT * baseS));
}

/** What a head's counted run needs beyond its own run: base's run of as many transactions, timed now. */
export interface HeadRunAttempts {
  /** The head's run with a limit; throws TooSlowToCount past it. */
  runHead(limitS: number): Promise<void>;
  /** Runs base's run of as many transactions now; its seconds. */
  timeBaseNow(): Promise<number>;
  /** Before the retry: forget the stopped attempt (its backend is not the retried run's). */
  beforeRetry(): Promise<void>;
  /** Says why the head is retried. */
  note(message: string): void;
}

/**
 * A head's counted run, limited by base's earlier run of as many transactions (`baseS`). Past its limit,
 * base's run is timed again: when the runner got much slower since (the limit from base's run now is at
 * least RETRY_FACTOR times the first), the head is retried once with that limit; otherwise the head really
 * is too slow to count.
 */
export async function headCountedRun(baseS: number | undefined, attempts: HeadRunAttempts): Promise<void> {
  const limitS = countedRunLimitS(baseS);
  try {
    await attempts.runHead(limitS);
  } catch (e) {
    if (!(e instanceof TooSlowToCount) || limitS >= COUNTED_RUN_LIMIT_S) throw e;
    const baseNowS = await attempts.timeBaseNow();
    const retryLimitS = countedRunLimitS(baseNowS);
    if (retryLimitS < RETRY_FACTOR * limitS) throw e;
    attempts.note(
      `base's run of as many transactions took ${baseNowS.toFixed(1)} s now (${(baseS ?? 0).toFixed(1)} s before): the runner is loaded, so the head's run is retried with a ${retryLimitS.toFixed(0)} s limit`,
    );
    await attempts.beforeRetry();
    await attempts.runHead(retryLimitS);
  }
}
