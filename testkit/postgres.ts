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

/** Pids of processes whose command line mentions `fragment` (e.g. a test's private temp dir). */
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

export function processesMentioning(fragment: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(fragment)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** Real uid of a process. */
export function processUid(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
}
