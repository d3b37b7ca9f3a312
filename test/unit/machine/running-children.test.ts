/**
 * The forced exit's last step: the children pgperf started that are still running (the interrupted
 * graceful path's `pg_ctl stop`, found orphaned by controls-cli.int.test.ts) are killed by their own pid
 * and waited for, and nothing new starts afterwards. Every child is stopped with its process group: what
 * it started itself (git's `git remote-http`, holding the token) goes with it, on an abort, a timeout and
 * the forced exit. Real processes (`sh`, `sleep`), real signals.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { killRunningChildren, nodeProcessRunner } from '../../../src/machine/os/process.js';

/** Pids of processes running `sleep <seconds>` for one of `marks` (unlikely lengths: only ours). */
function sleeping(marks: string[]): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        const [bin, arg] = readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0');
        return bin === 'sleep' && marks.includes(arg ?? '');
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** A shell that starts `sleep <mark>` in the background and waits for it: a child with a grandchild. */
const withGrandchild = (mark: string) => ['-c', `sleep ${mark} & wait`];

describe('a child is stopped with its process group', () => {
  it('an abort kills the child and the grandchild it started', async () => {
    const marks = ['3607.4'];
    const controller = new AbortController();
    const run = nodeProcessRunner.run('sh', withGrandchild(marks[0]!), { signal: controller.signal });
    for (let i = 0; i < 100 && sleeping(marks).length < 1; i++) await sleep(20);
    expect(sleeping(marks)).toHaveLength(1);
    controller.abort();
    const ran = await run;
    expect(ran.signal).toBe('SIGTERM');
    expect(sleeping(marks)).toEqual([]);
  });

  it('a timeout kills the child and the grandchild it started', async () => {
    const marks = ['3607.5'];
    const ran = await nodeProcessRunner.run('sh', withGrandchild(marks[0]!), { timeoutMs: 300 });
    expect(ran.timedOut).toBe(true);
    expect(sleeping(marks)).toEqual([]);
  });

  it('the child leads a process group of its own, not the one of pgperf: a terminal Ctrl-C reaches pgperf alone', async () => {
    const ran = await nodeProcessRunner.run('sh', ['-c', 'echo $$; ps -o pgid= -p $$']);
    const [pid, pgid] = ran.stdout.trim().split(/\s+/).map(Number);
    expect(pgid).toBe(pid);
    expect(pgid).not.toBe(process.pid);
  });
});

describe('killRunningChildren', () => {
  it('kills the running children and their groups, waits until they are gone, and refuses to start more', async () => {
    const marks = ['3607.1', '3607.2', '3607.3', '3607.6'];
    const runs = marks.slice(0, 2).map((m) => nodeProcessRunner.run('sleep', [m]));
    runs.push(nodeProcessRunner.run('sh', withGrandchild(marks[3]!)));
    expect((await nodeProcessRunner.run('true', [])).exitCode).toBe(0); // an ended child is not waited for
    for (let i = 0; i < 100 && sleeping(marks).length < 3; i++) await sleep(20);
    expect(sleeping(marks)).toHaveLength(3);

    await killRunningChildren();
    expect(sleeping(marks)).toEqual([]);
    for (const ran of await Promise.all(runs)) expect(ran.signal).toBe('SIGKILL');

    const late = await nodeProcessRunner.run('sleep', [marks[2]!]);
    expect(late.spawnError).toBe('not started: pgperf is exiting');
    expect(sleeping(marks)).toEqual([]);
  });
});
