/**
 * Ending pgperf whatever is pending. Node's process.exit() waits for libuv's thread pool to finish: a read
 * stuck there (a hung network mount, a FIFO nobody writes) keeps it waiting for ever, after "exiting now".
 * When such a request is pending, pgperf ends by a signal instead, which ends every thread: the signal it
 * was stopped by (the shell reports 130 or 143 as for an exit with that code), else SIGKILL.
 */

/** Requests that run in libuv's thread pool, as process.getActiveResourcesInfo() names them. */
const POOL_REQUEST = /^(FSReq|FileHandleCloseReq|GetAddrInfoReqWrap|GetNameInfoReqWrap)/;

/** How many file system (and DNS) requests are waiting in the thread pool now. */
export function pendingPoolRequests(): number {
  return process.getActiveResourcesInfo().filter((r) => POOL_REQUEST.test(r)).length;
}

/** Exit codes that mean "stopped by this signal" (128 + its number). */
const SIGNAL_OF_CODE: Record<number, NodeJS.Signals> = { 130: 'SIGINT', 143: 'SIGTERM' };

export interface EndProcessDeps {
  pending: () => number;
  exit: (code: number) => void;
  /** Ends the process by `signal`, its default action restored. */
  raise: (signal: NodeJS.Signals) => void;
  /** Where the one line about a pending request goes. */
  warn: (message: string) => void;
}

const nodeDeps: EndProcessDeps = {
  pending: pendingPoolRequests,
  exit: (code) => process.exit(code),
  raise: (signal) => {
    // No listener left: the signal's default action, which ends the process with every thread.
    if (signal !== 'SIGKILL') process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    // The signal is delivered as the call returns; should it not be (it is blocked), SIGKILL is.
    setTimeout(() => process.kill(process.pid, 'SIGKILL'), 1000);
  },
  warn: (message) => process.stderr.write(`pgperf: ${message}\n`),
};

/**
 * How long a request in the thread pool is given to finish before it is taken for one that never will: a
 * write of a healthy disk takes milliseconds.
 */
export const SETTLE_MS = 1000;

/**
 * Exits with `code`; when the thread pool still holds a request after `settleMs` (one that may never end),
 * ends by a signal instead.
 */
export function endProcess(code: number, deps: EndProcessDeps = nodeDeps, settleMs = SETTLE_MS): void {
  const start = Date.now();
  const attempt = () => {
    const pending = deps.pending();
    if (pending === 0) {
      deps.exit(code);
      return;
    }
    if (Date.now() - start < settleMs) {
      setTimeout(attempt, 50);
      return;
    }
    const signal = SIGNAL_OF_CODE[code] ?? 'SIGKILL';
    deps.warn(
      `${pending} file system request(s) still waiting (a hung mount?): ending by ${signal} rather than waiting for ${pending === 1 ? 'it' : 'them'}` +
        (signal === 'SIGKILL' ? ` (exit status 137, not ${code})` : ''),
    );
    deps.raise(signal);
  };
  attempt();
}

/**
 * After the command is done: if the process has not ended by itself within `graceMs` (something still
 * waits, such as a read of a hung mount that timed out), ends it with its exit code. The timer does not
 * keep the process alive.
 */
export function endWhenDone(graceMs = 5000, deps: EndProcessDeps = nodeDeps): void {
  setTimeout(() => endProcess(Number(process.exitCode ?? 0), deps), graceMs).unref();
  // The command is done and its own handlers are gone: a signal now (the second Ctrl-C of an impatient
  // user, a workflow's SIGTERM after its SIGINT) has nothing left to stop. Node's default action would end
  // pgperf by that signal, cutting the exit code its command set and any output still in flight.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => undefined);
}
