/**
 * The backends a client opened, read from the server log: the instruction mode's servers log connections
 * (log_connections = on) with the pid in the line prefix, so each cachegrind file (named by pid) can be
 * told apart from those of autovacuum workers and other processes that exit during a run.
 */

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
