/**
 * The CPU's own instruction counter (`perf stat -e instructions:u`, where the runner has a PMU): perf attaches
 * to the postmaster (`-p`) while one counted run goes. Counters inherit across fork, so the backend that
 * pgbench's connection forks is counted, and its count is folded into the total when it exits (so `work`
 * must wait for that exit); the background processes started before the attach (checkpointer, walwriter,
 * ...) are not. The caller takes the
 * difference of a short and a long run, which cancels the postmaster's fork and the connection's start-up.
 *
 * perf prints its counts only when it ends on SIGINT (SIGTERM ends it silently), and says nothing once it has
 * attached: the attach is seen in /proc, as a perf_event descriptor of the perf process.
 */
import { readFile, readdir, readlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ProcessRunner, ProcessResult } from '../../machine/os/process.js';
import { describeExit, tail } from '../../machine/os/process.js';

/** The event counted: user-space instructions (the kernel's work is not the patch's). */
export const HARDWARE_EVENT = 'instructions:u';
/** How long perf may take to attach. */
const ATTACH_WAIT_MS = 10_000;

/**
 * The count of `event` in perf stat's CSV output (`-x ,`): the value of the line naming the event. Throws
 * with perf's own words when it could not count ("<not supported>", "<not counted>").
 *
 * @example perfStatCount('695.30,msec,task-clock,695297272,100.00,0.565,CPUs utilized\n', 'task-clock') // 695.3
 */
export function perfStatCount(csv: string, event: string): number {
  const lines = csv.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
  const line = lines.find((l) => l.split(',')[2] === event);
  if (!line) {
    const wrote = csv
      .split('\n')
      .filter((l) => l.trim() !== '')
      .slice(-2)
      .join('; ');
    throw new Error(`perf stat wrote no count of ${event}: ${wrote || 'no output'}`);
  }
  const value = line.split(',')[0]!;
  const count = Number(value);
  if (value === '' || !Number.isFinite(count)) {
    throw new Error(`perf stat could not count ${event}: ${value}`);
  }
  return count;
}

/**
 * Counts `event` in the postmaster `pid` and the processes it forks while `work` runs: perf attached first,
 * `work` run, perf stopped, its output (`outFile`) read.
 */
export async function countDuring(
  pid: number,
  event: string,
  outFile: string,
  runner: ProcessRunner,
  work: () => Promise<void>,
): Promise<number> {
  const stop = new AbortController();
  let ended: ProcessResult | undefined;
  const perf = runner
    .run('perf', ['stat', '-e', event, '-x', ',', '-o', outFile, '-p', String(pid)], {
      signal: stop.signal,
      stopSignal: 'SIGINT',
    })
    .then((r) => (ended = r));
  try {
    await attached(outFile, () => ended);
    await work();
  } finally {
    stop.abort();
    await perf;
  }
  const text = await readFile(outFile, 'utf8').catch(() => '');
  if (!text && ended && ended.exitCode !== 0) {
    throw new Error(`perf stat -p ${pid} failed (${describeExit(ended)}): ${tail(ended.stderr, 3)}`);
  }
  return perfStatCount(text, event);
}

/** Waits until the perf process writing `outFile` holds a perf_event descriptor: it has attached. */
async function attached(outFile: string, ended: () => ProcessResult | undefined): Promise<void> {
  const deadline = Date.now() + ATTACH_WAIT_MS;
  for (;;) {
    const done = ended();
    if (done) {
      throw new Error(`perf stat ended before it attached (${describeExit(done)}): ${tail(done.stderr, 3)}`);
    }
    const pid = await perfPid(outFile);
    if (pid !== undefined && (await holdsPerfEvent(pid))) return;
    if (Date.now() > deadline) throw new Error(`perf stat did not attach within ${ATTACH_WAIT_MS / 1000} s`);
    await sleep(10);
  }
}

async function perfPid(outFile: string): Promise<number | undefined> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    const args = cmdline.split('\0');
    if (args.includes('stat') && args.includes(outFile)) return Number(entry);
  }
  return undefined;
}

async function holdsPerfEvent(pid: number): Promise<boolean> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    if (target === 'anon_inode:[perf_event]') return true;
  }
  return false;
}
