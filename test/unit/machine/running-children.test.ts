/**
 * The forced exit's last step: the children pgperf started that are still running (the interrupted
 * graceful path's `pg_ctl stop`, found orphaned by controls-cli.int.test.ts) are killed by their own pid
 * and waited for, and nothing new starts afterwards. Real processes (`sleep`), real signals.
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

describe('killRunningChildren', () => {
  it('kills the running children, waits until they are gone, and refuses to start more', async () => {
    const marks = ['3607.1', '3607.2', '3607.3'];
    const runs = marks.slice(0, 2).map((m) => nodeProcessRunner.run('sleep', [m]));
    expect((await nodeProcessRunner.run('true', [])).exitCode).toBe(0); // an ended child is not waited for
    for (let i = 0; i < 100 && sleeping(marks).length < 2; i++) await sleep(20);
    expect(sleeping(marks)).toHaveLength(2);

    await killRunningChildren();
    expect(sleeping(marks)).toEqual([]);
    for (const ran of await Promise.all(runs)) expect(ran.signal).toBe('SIGKILL');

    const late = await nodeProcessRunner.run('sleep', [marks[2]!]);
    expect(late.spawnError).toBe('not started: pgperf is exiting');
    expect(sleeping(marks)).toEqual([]);
  });
});
