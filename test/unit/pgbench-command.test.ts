import { describe, expect, it } from 'vitest';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import type { PgbenchWorkload } from '../../src/drivers/workload.js';
import {
  initArgs,
  measureArgs,
  needsTransactionLog,
  pipelinedSelectScript,
  threadsFor,
} from '../../src/drivers/pgbench/pgbench-command.js';

const connection = { host: '/tmp/s', port: 5555, user: 'postgres', database: 'pgperf' };
/** What every pgbench command line ends with: `connection`, as pgbench's flags. */
const connectionArgs = ['-h', '/tmp/s', '-p', '5555', '-U', 'postgres', 'pgperf'];
function pgbenchWorkload(text: string): PgbenchWorkload {
  const w = parseWorkload(text, 'w.yml');
  if (w.tool !== 'pgbench') throw new Error(`expected a pgbench workload, got ${w.tool}`);
  return w;
}
const workload = (extra = '') =>
  pgbenchWorkload(`name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1, 8]\nscale: 7\n${extra}`);

describe('pgbench command lines', () => {
  it('measured run: pgperf owns clients, threads, duration, progress and seed', () => {
    const args = measureArgs({
      workload: workload(),
      connection,
      clients: 8,
      durationS: 30,
      seed: 99,
      cpuCount: 4,
    });
    expect(args).toEqual([
      '-n',
      '-M',
      'prepared',
      '-c',
      '8',
      '-j',
      '4',
      '-T',
      '30',
      '-P',
      '1',
      '--random-seed=99',
      '-b',
      'select-only',
      ...connectionArgs,
    ]);
  });

  it('custom scripts carry weights and the scale (pgbench assumes :scale = 1 otherwise)', () => {
    const w = pgbenchWorkload(
      'name: w\ntool: pgbench\nscripts: [{file: /a.sql, weight: 3}, {file: /b.sql}]\nclients: [1]\nscale: 5\nextraArgs: ["--max-tries=3"]\n',
    );
    const args = measureArgs({ workload: w, connection, clients: 1, durationS: 5, seed: 1, cpuCount: 2 });
    expect(args.join(' ')).toContain('-f /a.sql@3 -f /b.sql@1 -s 5 --max-tries=3 -h');
  });

  it('pipelined select-only runs the generated script with the scale', () => {
    const args = measureArgs({
      workload: workload('pipeline: 5\n'),
      connection,
      clients: 1,
      durationS: 5,
      seed: 1,
      cpuCount: 2,
      pipelineScript: '/p.sql',
    });
    expect(args.join(' ')).toContain('-f /p.sql -s 7 -h');
    expect(args).not.toContain('-b');
  });

  it('the pipeline script sends N independent lookups in one pipeline', () => {
    const script = pipelinedSelectScript(5);
    expect(script.match(/^SELECT abalance FROM pgbench_accounts WHERE aid = :aid\d;$/gm)).toHaveLength(5);
    expect(script.indexOf('\\startpipeline')).toBeLessThan(script.indexOf('SELECT'));
    expect(script.trimEnd().endsWith('\\endpipeline')).toBe(true);
    expect(new Set(script.match(/:aid\d/g))).toEqual(new Set([':aid1', ':aid2', ':aid3', ':aid4', ':aid5']));
  });

  it('init loads the scale with the declared steps and options', () => {
    const w = workload('init: {steps: dtGvp, partitions: 4, fillfactor: 90, unloggedTables: true}\n');
    expect(initArgs(w, connection)).toEqual([
      '-i',
      '-I',
      'dtGvp',
      '-s',
      '7',
      '-q',
      '--partitions=4',
      '-F',
      '90',
      '--unlogged-tables',
      ...connectionArgs,
    ]);
  });

  it.each([
    ['auto', 1, 1],
    ['auto', 8, 4],
    ['clients', 8, 8],
    [2, 8, 2],
    [16, 8, 8],
  ] as const)('threads %s with %i clients on 4 CPUs -> -j %i', (rule, clients, expected) => {
    const w = { ...workload(), threads: rule };
    expect(threadsFor(w, clients, 4)).toBe(expected);
  });

  it('a percentile gate adds the per-transaction log; plain TPS runs do not write it', () => {
    const plain = workload();
    const gated = workload('metrics: [tps, p99]\n');
    expect(plain.metrics).toEqual(['tps']);
    expect(needsTransactionLog(plain)).toBe(false);
    expect(needsTransactionLog(workload('metrics: [tps, latency-avg]\n'))).toBe(false);
    expect(needsTransactionLog(gated)).toBe(true);
    const base = { connection, clients: 8, durationS: 30, seed: 99, cpuCount: 4 };
    expect(measureArgs({ ...base, workload: plain }).join(' ')).not.toContain('--log');
    const args = measureArgs({ ...base, workload: gated, transactionLogPrefix: '/tmp/x/tx' });
    expect(args).toContain('--log');
    expect(args).toContain('--log-prefix=/tmp/x/tx');
  });

  it('an unknown metric name is an error naming the file, the field and the names it accepts', () => {
    expect(() => workload('metrics: [tps, p90]\n')).toThrow(
      /w\.yml:\d+:\d+: metrics\[1\].*tps.*latency-avg.*p95.*p99.*p90/s,
    );
    expect(() => workload('metrics: [p99, p99]\n')).toThrow(/metrics: each metric at most once/);
  });
});
