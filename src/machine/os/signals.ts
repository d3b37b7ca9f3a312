/**
 * Signals and last-resort errors, handled the same way by every adapter (CLI and Action):
 *
 * - the first SIGINT or SIGTERM (a Ctrl-C, a workflow cancel or timeout) calls `onFirst`: the caller
 *   aborts its run, which stops the current measurement, keeps what was measured and cleans up;
 * - a second signal, an uncaught exception or an unhandled rejection runs every registered cleanup
 *   (servers stopped, temp directories removed) and exits at once;
 * - exit codes follow the shell convention 128 + signal number: 130 for SIGINT, 143 for SIGTERM.
 *
 * Handlers are attached with `on` (never `once`), so a second signal reaches us instead of Node's
 * default action, which would kill pgperf and leave its servers running.
 */
import { runCleanups } from './cleanup.js';
import { killRunningChildren } from './process.js';
import { UserError, errorMessage } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';

/** The signals pgperf handles; both mean "stop". */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** Exit code after an uncaught error (sysexits EX_SOFTWARE, as the CLI's "internal error"). */
export const EXIT_INTERNAL = 70;

const SIGNAL_NUMBERS: Record<StopSignal, number> = { SIGINT: 2, SIGTERM: 15 };

/** 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM. */
export function signalExitCode(signal: StopSignal): number {
  return 128 + SIGNAL_NUMBERS[signal];
}

/** The part of `process` the handlers use (a plain EventEmitter in tests). */
export type SignalSource = Pick<NodeJS.EventEmitter, 'on' | 'off'>;

export interface SignalHandlerOptions {
  logger: Logger;
  /** The first SIGINT/SIGTERM: stop gracefully (e.g. abort the run's AbortController). */
  onFirst: (signal: StopSignal) => void;
  /**
   * Runs before a forced exit (default: every cleanup registered with onCleanup, then the children still
   * running are killed, so that none outlives pgperf).
   */
  cleanup?: () => Promise<void>;
  /** Ends the process (default process.exit). */
  exit?: (code: number) => void;
  /** Where signals and errors come from (default process). */
  source?: SignalSource;
}

/**
 * Installs the handlers; returns the function that removes them again (call it in `finally`).
 * A forced exit runs the cleanups at most once, whatever arrives while they run.
 */
export function installSignalHandlers(options: SignalHandlerOptions): () => void {
  const source = options.source ?? process;
  const cleanup =
    options.cleanup ??
    (async () => {
      await runCleanups();
      await killRunningChildren();
    });
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const { logger } = options;
  let first: StopSignal | undefined;
  let exiting = false;

  const forceExit = (code: number) => {
    if (exiting) return;
    exiting = true;
    void cleanup()
      .catch((e: unknown) => logger.error(`cleanup failed: ${errorMessage(e)}`))
      .finally(() => exit(code));
  };
  const onSignal = (signal: StopSignal) => {
    if (first === undefined) {
      first = signal;
      logger.warn(
        `${signal}: stopping; keeping what was measured so far and stopping the servers (${signal} again to force)`,
      );
      options.onFirst(signal);
      return;
    }
    logger.warn(`${signal} again: stopping the servers and exiting now`);
    forceExit(signalExitCode(signal));
  };
  const onFatal = (e: unknown) => {
    logger.error(`internal error: ${errorMessage(e)}; stopping the servers and exiting`);
    if (e instanceof Error && e.stack) logger.debug(e.stack);
    forceExit(EXIT_INTERNAL);
  };
  const listeners: Record<string, (arg: unknown) => void> = {
    SIGINT: () => onSignal('SIGINT'),
    SIGTERM: () => onSignal('SIGTERM'),
    uncaughtException: onFatal,
    unhandledRejection: onFatal,
  };
  for (const [event, listener] of Object.entries(listeners)) source.on(event, listener);
  return () => {
    for (const [event, listener] of Object.entries(listeners)) source.off(event, listener);
  };
}

/** A command stopped by a signal: a user-facing message and the conventional exit code (130, 143). */
export class InterruptedError extends UserError {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'InterruptedError';
  }
}
