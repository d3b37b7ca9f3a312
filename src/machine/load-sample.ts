/**
 * What the machine is doing besides pgperf, over a short window: /proc/stat (busy and steal shares of
 * all CPUs) and /proc/<pid>/stat (who is using them) read twice. Shares are relative to the jiffies
 * the kernel counted in the window, so no clock-tick constant is needed. Parsing is pure and tested
 * on captured snapshots; only `takeLoadSnapshot` reads files.
 */
import { parsePidStatLine } from './pid-stat.js';
import { listDir, readText } from './sysfs.js';

export interface CpuTimes {
  /** Sum of every field of the aggregate "cpu" line (jiffies). */
  total: number;
  /** idle + iowait. */
  idle: number;
  steal: number;
}

export interface ProcTimes {
  pid: number;
  comm: string;
  /** utime + stime (jiffies). */
  cpu: number;
}

export interface LoadSnapshot {
  cpu: CpuTimes;
  procs: ProcTimes[];
}

export interface BusyProcess {
  pid: number;
  comm: string;
  /** Share of one CPU used during the window (1 = one whole CPU). */
  cpus: number;
}

export interface LoadWindow {
  /** Share of all CPUs' time that was busy (not idle, not iowait), 0..1. */
  busyShare: number;
  /** Share of all CPUs' time stolen by the hypervisor, 0..1. */
  stealShare: number;
  /** Processes by CPU used in the window, largest first. */
  processes: BusyProcess[];
}

/** The aggregate "cpu" line of /proc/stat. */
export function parseProcStat(text: string): CpuTimes {
  const line = text.split('\n').find((l) => /^cpu\s/.test(l));
  if (!line) throw new Error('/proc/stat: no aggregate "cpu" line');
  // user nice system idle iowait irq softirq steal guest guest_nice; guest time is already in user.
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  const at = (i: number) => f[i] ?? 0;
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
  return { total, idle: at(3) + at(4), steal: at(7) };
}

/** One /proc/<pid>/stat as the load window uses it: the process and its CPU ticks (utime + stime). */
export function parsePidStat(text: string): ProcTimes | undefined {
  const stat = parsePidStatLine(text);
  return stat && { pid: stat.pid, comm: stat.comm, cpu: stat.utime + stat.stime };
}

/** Reads /proc/stat and every /proc/<pid>/stat under root. */
export async function takeLoadSnapshot(root: string): Promise<LoadSnapshot | undefined> {
  const stat = await readText(root, 'proc/stat');
  if (stat === undefined) return undefined;
  const procs: ProcTimes[] = [];
  for (const entry of await listDir(root, 'proc', /^\d+$/)) {
    const text = await readText(root, `proc/${entry}/stat`);
    const parsed = text && parsePidStat(text);
    if (parsed) procs.push(parsed);
  }
  return { cpu: parseProcStat(stat), procs };
}

/**
 * Busy and steal shares between two snapshots, and the processes that used CPU (excluding `exclude`,
 * e.g. pgperf itself). `logicalCpus` converts jiffies of all CPUs into one CPU's worth.
 */
export function loadWindow(
  before: LoadSnapshot,
  after: LoadSnapshot,
  logicalCpus: number,
  exclude: readonly number[] = [],
): LoadWindow {
  const dTotal = after.cpu.total - before.cpu.total;
  if (dTotal <= 0) return { busyShare: 0, stealShare: 0, processes: [] };
  const dIdle = after.cpu.idle - before.cpu.idle;
  const dSteal = after.cpu.steal - before.cpu.steal;
  const perCpu = dTotal / Math.max(1, logicalCpus);
  const earlier = new Map(before.procs.map((p) => [p.pid, p.cpu]));
  const processes: BusyProcess[] = [];
  for (const p of after.procs) {
    const was = earlier.get(p.pid);
    if (was === undefined || exclude.includes(p.pid)) continue;
    const used = p.cpu - was;
    if (used > 0) processes.push({ pid: p.pid, comm: p.comm, cpus: used / perCpu });
  }
  processes.sort((a, b) => b.cpus - a.cpus || a.pid - b.pid);
  return {
    busyShare: clamp01((dTotal - dIdle - dSteal) / dTotal),
    stealShare: clamp01(dSteal / dTotal),
    processes,
  };
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}
