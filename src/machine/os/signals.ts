/**
 * Signals and last-resort errors, handled the same way by every adapter (CLI and Action):
 *
 * - the first SIGINT or SIGTERM (a Ctrl-C, a workflow cancel or timeout) calls `onFirst`: the caller
 *   aborts its run, which stops the current measurement, keeps what was measured and cleans up; should that
 *   graceful stop still be going after GRACEFUL_STOP_MS (something that never answers), the exit is forced
 *   as by a second signal, so one SIGTERM always ends pgperf;
 * - a second signal, an uncaught exception or an unhandled rejection runs every registered cleanup
 *   (the results document finished first, then servers stopped, temp directories removed) and exits; a
 *   cleanup that hangs is given up after FORCED_CLEANUP_MS;
 * - exit codes follow the shell convention 128 + signal number: 130 for SIGINT, 143 for SIGTERM; when a
 *   file system request still waits in the thread pool (a hung mount), which process.exit would wait for,
 *   pgperf ends by the signal itself (end-process.ts), which a shell reports as the same 130 or 143.
 *
 * Handlers are attached with `on` (never `once`), so a second signal reaches us instead of Node's
 * default action, which would kill pgperf and leave its servers running.
 */
import { runCleanups, runFirstCleanups } from './cleanup.js';
import { endProcess } from './end-process.js';
import { killRunningChildren, stopRunningChildren } from './process.js';
import { UserError, errorMessage } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';

/** The signals pgperf handles; both mean "stop". */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** Exit code after an uncaught error (sysexits EX_SOFTWARE, as the CLI's "internal error"). */
export const EXIT_INTERNAL = 70;

const SIGNAL_NUMBERS: Record<StopSignal, number> = { SIGINT: 2, SIGTERM: 15 };

/**
 * How long the graceful stop after a first signal may take before the exit is forced: the measurement is
 * killed at once and the results write takes milliseconds, but each server's fast shutdown may wait up to a
 * minute for its shutdown checkpoint (then an immediate one up to another), one cluster after the other.
 * Five minutes covers that for a few clusters; past it something does not answer (a hung file system).
 */
export const GRACEFUL_STOP_MS = 300_000;

/**
 * How long a forced exit waits for its cleanups (the document's final write, the servers stopped, their
 * directories removed) before it exits without them: as long as a graceful stop, for the same servers; a
 * file system that never answers must not keep pgperf alive for ever.
 */
export const FORCED_CLEANUP_MS = 300_000;

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
   * Runs before a forced exit (default: the cleanups registered `first` (the results record), then the
   * children running are killed with their groups, then every other cleanup (servers stopped, directories
   * removed), then whatever children those left, so that none outlives pgperf).
   */
  cleanup?: () => Promise<void>;
  /** Ends the process (default endProcess: process.exit, or the signal when a file read may never end). */
  exit?: (code: number) => void;
  /** Where signals and errors come from (default process). */
  source?: SignalSource;
  /** Replaces GRACEFUL_STOP_MS (tests). */
  gracefulStopMs?: number;
  /** Replaces FORCED_CLEANUP_MS (tests). */
  forcedCleanupMs?: number;
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
      // The results record first (quick, and what a SIGKILL soon after must not lose), then no child may
      // write on while the cleanups stop servers and remove directories, then what the cleanups left.
      await runFirstCleanups();
      await stopRunningChildren();
      await runCleanups();
      await killRunningChildren();
    });
  const exitProcess = options.exit ?? ((code: number) => endProcess(code));
  const gracefulStopMs = options.gracefulStopMs ?? GRACEFUL_STOP_MS;
  const forcedCleanupMs = options.forcedCleanupMs ?? FORCED_CLEANUP_MS;
  const { logger } = options;
  let first: StopSignal | undefined;
  let exiting = false;
  let exited = false;
  let graceTimer: NodeJS.Timeout | undefined;
  const exit = (code: number) => {
    if (exited) return;
    exited = true;
    exitProcess(code);
  };

  const forceExit = (code: number) => {
    if (exiting) return;
    exiting = true;
    clearTimeout(graceTimer);
    const deadline = setTimeout(() => {
      logger.error(`the cleanup still runs after ${forcedCleanupMs / 1000} s: exiting without it`);
      exit(code);
    }, forcedCleanupMs);
    void cleanup()
      .catch((e: unknown) => logger.error(`cleanup failed: ${errorMessage(e)}`))
      .finally(() => {
        clearTimeout(deadline);
        exit(code);
      });
  };
  const onSignal = (signal: StopSignal) => {
    if (first === undefined) {
      first = signal;
      stoppedOnce = true;
      logger.warn(
        `${signal}: stopping; keeping what was measured so far and stopping the servers (${signal} again to force)`,
      );
      // One signal always ends pgperf: a graceful stop that hangs is forced after a while.
      graceTimer = setTimeout(() => {
        logger.warn(`${signal}: still stopping after ${gracefulStopMs / 1000} s; forcing the exit`);
        forceExit(signalExitCode(signal));
      }, gracefulStopMs);
      graceTimer.unref();
      options.onFirst(signal);
      return;
    }
    logger.warn(`${signal} again: stopping the servers and exiting now`);
    forceExit(signalExitCode(signal));
  };
  const onFatal = (e: unknown) => {
    // Once: an error while exiting (a report that cannot be written) must not report itself again and again.
    if (exiting) return;
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
  active++;
  return () => {
    clearTimeout(graceTimer);
    for (const [event, listener] of Object.entries(listeners)) source.off(event, listener);
    active--;
  };
}

/** Handler sets installed now, and whether any of them was stopped by a signal (lateSignalGuard). */
let active = 0;
let stoppedOnce = false;

/**
 * For an entry point (src/cli.ts), before its command: a signal that comes after a command was stopped and
 * let go of its handlers (the second Ctrl-C of an impatient user, just after the stop finished) is ignored:
 * the command is ending with its exit code (130, 143), and Node's default action would cut that code and
 * the output still in flight. A signal while no command was ever stopped and none listens ends the process
 * as Node's default action would.
 */
export function installLateSignalGuard(): void {
  const guard = (signal: NodeJS.Signals) => {
    if (active > 0 || stoppedOnce) return;
    process.off('SIGINT', guard);
    process.off('SIGTERM', guard);
    process.kill(process.pid, signal);
  };
  process.on('SIGINT', guard);
  process.on('SIGTERM', guard);
}

/** A command stopped by a signal: a user-facing message and the conventional exit code (130, 143). */
export class InterruptedError extends UserError {
  declare readonly exitCode: number;

  constructor(message: string, exitCode: number) {
    super(message, { exitCode });
    this.name = 'InterruptedError';
  }
}
