/** Test helpers for integration tests that use the machine's PostgreSQL. */
import { readdirSync, readFileSync } from 'node:fs';

/** Bin dir of the newest Debian-installed PostgreSQL (scripts/setup.sh installs one). */
export function installedBinDir(): string {
  const versions = readdirSync('/usr/lib/postgresql')
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) throw new Error('no PostgreSQL under /usr/lib/postgresql: run scripts/setup.sh');
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

/** Kills (SIGKILL) what a failed test left running in `dir`, by each process's own pid. */
export function killProcessesMentioning(dir: string): void {
  for (const pid of processesMentioning(dir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone.
    }
  }
}

/** Pids of processes whose command line mentions `fragment` (e.g. a test's private temp dir). */
export function processesMentioning(fragment: string): number[] {
  return commandLinesMentioning(fragment).map(({ pid }) => pid);
}

/**
 * The processes whose command line mentions `fragment`, as "pid: command line": what a failed
 * "nothing left running" assertion should show.
 */
export function leftoverProcesses(fragment: string): string[] {
  return commandLinesMentioning(fragment).map(({ pid, cmdline }) => `${pid}: ${cmdline}`);
}

function commandLinesMentioning(fragment: string): Array<{ pid: number; cmdline: string }> {
  const found: Array<{ pid: number; cmdline: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      if (cmdline.includes(fragment)) found.push({ pid: Number(entry), cmdline });
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** Real uid of a process. */
export function processUid(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
}
