/**
 * Ctrl-C for a whole command, from its first step: the signal handlers (src/machine/os/signals.ts) are
 * installed before the command reads its workloads, so a signal while it reads, checks and plans is
 * answered as one during the run is (the first stops, the second forces the exit), and the steps before the
 * run ask `throwIfStopped` between them. Each of those steps is short: the plan's size is bounded before
 * anything is planned (src/run/plan-size.ts) and validation is linear, so no synchronous loop holds a
 * signal back.
 */
import { errorMessage } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import {
  InterruptedError,
  installSignalHandlers,
  signalExitCode,
  type StopSignal,
} from '../../machine/os/signals.js';

export interface StopScope {
  /** Aborted by the first signal: the run stops after its current measurement and keeps what it measured. */
  readonly signal: AbortSignal;
  /** The signal that stopped the command, if one did. */
  stoppedBy(): StopSignal | undefined;
  /** Before the run begins: an InterruptedError (130, 143) when a signal came. */
  throwIfStopped(): void;
  /** Removes the handlers (in `finally`). */
  dispose(): void;
}

export function stopOnSignals(logger: Logger): StopScope {
  const controller = new AbortController();
  let stoppedBy: StopSignal | undefined;
  const dispose = installSignalHandlers({
    logger,
    onFirst: (signal) => {
      stoppedBy = signal;
      controller.abort(new Error(`interrupted by ${signal}`));
    },
  });
  return {
    signal: controller.signal,
    stoppedBy: () => stoppedBy,
    throwIfStopped: () => {
      if (stoppedBy) {
        throw new InterruptedError(
          `${stoppedBy}: stopped before the run began; nothing was started`,
          signalExitCode(stoppedBy),
        );
      }
    },
    dispose,
  };
}

/**
 * Runs a build with Ctrl-C handling: the first signal kills the running step and cleans up (the lock
 * is released, nothing half-built is kept); a second one exits at once.
 */
export async function withInterrupt<T>(
  logger: Logger,
  fn: (signal: AbortSignal) => Promise<T>,
  /** Told which signal stopped `fn`, for a caller whose flow keeps what it measured and returns. */
  stopped: { by?: StopSignal } = {},
): Promise<T> {
  const stop = stopOnSignals(logger);
  try {
    return await fn(stop.signal);
  } catch (e) {
    if (!stop.signal.aborted) throw e;
    process.exitCode = signalExitCode(stop.stoppedBy() ?? 'SIGINT');
    throw new InterruptedError(
      `interrupted (${errorMessage(e).split('\n')[0]}): nothing half-built was kept`,
      process.exitCode,
    );
  } finally {
    const by = stop.stoppedBy();
    if (by) stopped.by = by;
    stop.dispose();
  }
}
