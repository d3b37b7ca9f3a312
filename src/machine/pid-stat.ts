/** One process's line of /proc/<pid>/stat, read by the load window (machine) and the stat snapshots (postgres). */

/** The fields of /proc/<pid>/stat pgperf reads. */
export interface PidStat {
  pid: number;
  comm: string;
  /** R, S, D, Z (exited, not yet reaped), ... */
  state: string;
  ppid: number;
  /** Clock ticks of this process in user and system mode. */
  utime: number;
  stime: number;
  /** Clock ticks of its reaped children. */
  cutime: number;
  cstime: number;
}

/** Parses one /proc/<pid>/stat line; undefined when it is not one. The name (comm) may hold spaces and ")". */
export function parsePidStatLine(text: string): PidStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  // After the name: state(3) ppid(4) pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
  // utime(14) stime(15) cutime(16) cstime(17) ...
  const f = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const field = (n: number) => Number(f[n - 3]);
  const out: PidStat = {
    pid,
    comm: text.slice(open + 1, close),
    state: f[0] ?? '',
    ppid: field(4),
    utime: field(14),
    stime: field(15),
    cutime: field(16),
    cstime: field(17),
  };
  const numbers = [out.pid, out.ppid, out.utime, out.stime, out.cutime, out.cstime];
  return numbers.every((n) => Number.isInteger(n) && n >= 0) ? out : undefined;
}
