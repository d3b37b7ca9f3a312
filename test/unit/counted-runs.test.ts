/**
 * Counted runs go through the driver (src/run/counted/counted-runs.ts, Driver.runTransactions): pgbench runs them as
 * `pgbench -t` at the given clients and seed, with the caller's application name, and says why one failed;
 * sysbench has none, so the instruction mode refuses its workloads before anything starts, with the same
 * message as before the driver said so, and the explain phase passes them over.
 */
import { describe, expect, it } from 'vitest';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import type { Workload } from '../../src/drivers/workload.js';
import { countingClient, countsTransactions } from '../../src/run/counted/counted-runs.js';
import { checkInstructionWorkloads } from '../../src/run/counted/instruction-phase.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import type { ProcessRunner, RunOptions } from '../../src/machine/os/process.js';
import type { BenchTarget } from '../../src/drivers/common/driver.js';

const pgbench = (extra = ''): Workload =>
  parseWorkload(`name: sel\ntool: pgbench\nbuiltin: select-only\nclients: [1, 4]\n${extra}`, 'sel.yml');
const sysbench = (extra = ''): Workload =>
  parseWorkload(`name: ro\ntool: sysbench\nscript: oltp_read_only\nclients: [1]\n${extra}`, 'ro.yml');

const target: BenchTarget = {
  label: 'head/instructions',
  connection: { host: '/tmp/sock', port: 5433, user: 'pgperf', database: 'bench' },
  version: { text: 'postgres (PostgreSQL) 18.6', major: 18 },
  psql: () => Promise.resolve(''),
};

function recordingRunner(exitCode: number) {
  const calls: Array<{ command: string; args: string[]; options: RunOptions | undefined }> = [];
  const runner: ProcessRunner = {
    run: (command, args, options) => {
      calls.push({ command, args, options });
      return Promise.resolve({
        command: [command, ...args],
        exitCode,
        signal: null,
        stdout: '',
        stderr: 'connection refused\n',
        durationMs: 1,
        timedOut: false,
      });
    },
  };
  return { runner, calls };
}

describe('counted runs through the driver', () => {
  it('pgbench counts transactions, sysbench does not', () => {
    expect(countsTransactions(pgbench())).toBe(true);
    expect(countsTransactions(sysbench())).toBe(false);
  });

  it('pgbench runs -t at the given clients and seed, with the caller’s application name', async () => {
    const { runner, calls } = recordingRunner(0);
    const deps = { runner, logger: memoryLogger(), runAs: undefined };
    const { driver, clientBinDir } = countingClient(
      pgbench(),
      { arms: [], clientBinDir: '/opt/pg/bin' },
      deps,
    );
    expect(clientBinDir).toBe('/opt/pg/bin');
    await driver.runTransactions(target, {
      clients: 1,
      transactions: 200,
      seed: 1001,
      applicationName: 'pgbench',
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.command).toBe('/opt/pg/bin/pgbench');
    expect(calls[0]!.args).toEqual([
      '-n',
      '-M',
      'prepared',
      '-c',
      '1',
      '-j',
      '1',
      '-t',
      '200',
      '--random-seed=1001',
      '-b',
      'select-only',
      '-h',
      '/tmp/sock',
      '-p',
      '5433',
      '-U',
      'pgperf',
      'bench',
    ]);
    expect(calls[0]!.options?.env).toEqual({ LC_ALL: 'C', PGAPPNAME: 'pgbench' });
  });

  it('a failed counted run throws with the arm, the count and the stderr tail', async () => {
    const { runner } = recordingRunner(1);
    const deps = { runner, logger: memoryLogger(), runAs: undefined };
    const { driver } = countingClient(pgbench(), { arms: [], clientBinDir: '/opt/pg/bin' }, deps);
    await expect(
      driver.runTransactions(target, { clients: 1, transactions: 50, seed: 1, applicationName: 'pgbench' }),
    ).rejects.toThrow(/^arm head\/instructions: pgbench -t 50 failed \(exit code 1\): connection refused/);
  });

  it('the instruction mode refuses sysbench workloads before anything starts, as before', () => {
    expect(() => checkInstructionWorkloads([sysbench('instructions: true\n')])).toThrow(
      'workload ro: instructions: counts need fixed transaction counts, which only pgbench runs (tool sysbench); drop instructions from this workload',
    );
    expect(() => checkInstructionWorkloads([pgbench('instructions: true\npipeline: 8\n')])).toThrow(
      'workload sel: instructions: not measured with pipeline (8); drop one of instructions and pipeline',
    );
    expect(() => checkInstructionWorkloads([pgbench('instructions: true\n'), sysbench()])).not.toThrow();
  });
});
