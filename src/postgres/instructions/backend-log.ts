/**
 * The backends a client opened, read from the server log: the instruction mode's servers log connections
 * (log_connections = on) with the pid in the line prefix, so each cachegrind file (named by pid) can be
 * told apart from those of autovacuum workers and other processes that exit during a run. A backend's
 * counts are complete only once it has exited, which the counted runs wait for.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { hasExited } from '../../machine/os/process-state.js';

/** Seconds a backend may take to exit (and write its cachegrind file) after the client ends. */
export const BACKEND_EXIT_WAIT_S = 60;

/** Settings the instruction mode's servers add (log only: they change nothing a backend executes per transaction). */
export const CONNECTION_LOG_SETTINGS: Readonly<Record<string, string>> = {
  log_connections: 'on',
  log_line_prefix: "'%m [%p] '",
};

/** Pids of the backends authorised for `applicationName` in `logText` (lines "... [pid] LOG:  connection authorized: ... application_name=X"). */
export function clientBackendPids(logText: string, applicationName: string): number[] {
  const pids: number[] = [];
  const pattern = /\[(\d+)\][^\n]*connection authorized:[^\n]*application_name=(\S+)/g;
  for (const m of logText.matchAll(pattern)) {
    if (m[2] === applicationName) pids.push(Number(m[1]));
  }
  return pids;
}

/** Waits until every pid has exited (a zombie has: its counts are folded at exit, before it is reaped). */
export async function waitForExit(pids: readonly number[], signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + BACKEND_EXIT_WAIT_S * 1000;
  for (const pid of pids) {
    while (!(await hasExited(pid))) {
      signal?.throwIfAborted();
      if (Date.now() > deadline)
        throw new Error(`backend ${pid} did not exit within ${BACKEND_EXIT_WAIT_S} s`);
      await sleep(10);
    }
  }
}
