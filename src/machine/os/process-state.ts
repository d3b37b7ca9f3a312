/** What /proc says of a process by pid: its state, and whether it has exited. */
import { readFile } from 'node:fs/promises';

/** The state letter /proc gives a process (R, S, Z, ...); undefined when it is gone or /proc is absent. */
export async function processState(pid: number): Promise<string | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) S ...": comm may hold spaces and parentheses; the state follows the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/**
 * Whether `pid` has exited: gone, or a zombie its parent has not reaped yet (it did exit; a container's init
 * may never reap it).
 */
export async function hasExited(pid: number): Promise<boolean> {
  const state = await processState(pid);
  return state === undefined || state === 'Z' || state === 'X' || state === 'x';
}
