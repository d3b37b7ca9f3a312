/**
 * The instruction mode's perf path (`--instruction-counter perf`) on the machine's PostgreSQL, as both arms.
 * This VM has no PMU (`perf stat -e instructions:u` says <not supported>), so the run counts the software
 * event task-clock (`--perf-event`, hidden) through the same code: perf attached to each postmaster for
 * every counted run, the forked backend's count inherited, printed on SIGINT, and the per-transaction
 * figure from the short and the long run. instructions:u itself is counted by the skipped case in
 * instructions.int.test.ts on a runner with a PMU. A machine without the CPU's counter is refused
 * `--instruction-counter perf` before anything runs.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { probeCounters } from '../../src/postgres/instructions/counter.js';
import { installedBinDir, leftoverProcesses } from '../../testkit/postgres.js';
import { onlyResults, sameInstallArms } from '../helpers/cli.js';
import { instructionWorkloadFile } from '../helpers/workload-file.js';
import { runMain } from '../helpers/main-in-process.js';

const binDir = installedBinDir();
const probe = await probeCounters(nodeProcessRunner);
let tmp: string;
let workload: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-perf-'));
  await chmod(tmp, 0o755);
  workload = await instructionWorkloadFile(tmp, 2, '{ repetitions: 2, short: 200, long: 3000, warmup: 100 }');
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const run = (out: string, counter: string[]) =>
  runMain([
    'run',
    ...sameInstallArms(binDir),
    '--workload',
    workload,
    '--out',
    out,
    '--tmp-dir',
    tmp,
    '--no-store',
    '--force',
    ...counter,
  ]);

describe('--instruction-counter perf', () => {
  it('counts every repetition with perf attached to the postmaster: the long run counts more, per transaction > 0', async () => {
    const out = path.join(tmp, 'out');
    const ran = await run(out, ['--instruction-counter', 'perf', '--perf-event', 'task-clock']);
    const record = (await onlyResults(out)).instructions!;
    expect(record.failures, ran.stderr).toEqual([]);
    expect(record.counter).toBe('perf');
    expect(record.samples).toHaveLength(4);
    for (const s of record.samples) {
      expect(s.counter).toBe('perf');
      expect(s.shortInstructions).toBeGreaterThan(0);
      // 2,800 more transactions of the backend: more CPU time, whatever the noise of one connection.
      expect(s.longInstructions, JSON.stringify(s)).toBeGreaterThan(s.shortInstructions);
      expect(s.perTx).toBeGreaterThan(0);
    }
    expect(record.profiles).toEqual([]);
    expect(record.notes.join('\n')).toMatch(/select-only: no per-function profile with the CPU's counter/);
    expect(ran.stdout + ran.stderr).toMatch(/instructions: counting with perf stat -e task-clock/);
    // perf is stopped after every counted run, and the servers after the phase.
    expect(leftoverProcesses(tmp)).toEqual([]);
  }, 300_000);

  it.skipIf(probe.hardware)(
    "is refused before anything runs where the CPU's counter is unavailable (this VM: no PMU)",
    async () => {
      const out = path.join(tmp, 'refused');
      const ran = await run(out, ['--instruction-counter', 'perf']);
      expect(ran.code).toBe(2);
      expect(ran.stderr).toMatch(
        /instructions: --instruction-counter perf: the CPU's counter is unavailable here \(perf stat -e instructions:u: <not supported>/,
      );
      expect(ran.stderr).not.toMatch(/round \d+\/\d+/);
      expect(leftoverProcesses(tmp)).toEqual([]);
    },
  );
});
