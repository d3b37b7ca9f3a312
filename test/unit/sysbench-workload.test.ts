import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkloadFile, parseWorkload } from '../../src/drivers/load-workload.js';
import { checkSysbenchExtraArg } from '../../src/drivers/sysbench/sysbench-workload.js';
import { type SysbenchWorkload } from '../../src/drivers/workload.js';

const workloadsDir = new URL('../../workloads/', import.meta.url).pathname;

const minimal = 'name: w\ntool: sysbench\nscript: oltp_read_only\nclients: [1, 4]\n';

async function loadSysbench(file: string): Promise<SysbenchWorkload> {
  const w = await loadWorkloadFile(path.join(workloadsDir, file));
  if (w.tool !== 'sysbench') throw new Error(`${file}: expected a sysbench workload, got ${w.tool}`);
  return w;
}

describe('shipped sysbench workloads', () => {
  const fullCache = {
    'sysbench-oltp-read-only.yml': 'oltp_read_only',
    'sysbench-oltp-read-write.yml': 'oltp_read_write',
    'sysbench-oltp-write-only.yml': 'oltp_write_only',
    'sysbench-oltp-point-select.yml': 'oltp_point_select',
  };

  it.each(Object.entries(fullCache))(
    '%s: the full-cache scenario scaled down, 8 tables x 25,000 rows, threads 1..64',
    async (file, script) => {
      expect(await loadSysbench(file)).toMatchObject({
        name: file.replace(/\.yml$/, ''),
        script,
        tables: 8,
        tableSize: 25000,
        clients: [1, 2, 4, 8, 16, 32, 64],
        duration: 20,
        warmup: 5,
        randType: 'uniform',
        psMode: 'auto',
        percentile: 95,
        settings: {},
      });
      // No rounds of its own: a comparison's rounds are adaptive by default.
      expect((await loadSysbench(file)).rounds).toBeUndefined();
    },
  );

  it('sysbench-smoke.yml is short: 2 tables x 2,000 rows, threads 1 and 2, 2-second runs', async () => {
    const w = await loadSysbench('sysbench-smoke.yml');
    expect(w).toMatchObject({
      script: 'oltp_read_write',
      tables: 2,
      tableSize: 2000,
      clients: [1, 2],
      duration: 2,
      warmup: 1,
      rounds: 5,
    });
    // About a minute with two arms: 2 cells x 2 arms x 5 rounds of 2 s, plus warm-ups and resets.
    expect(w.clients.length * 2 * w.rounds! * w.duration + w.clients.length * 2 * w.warmup).toBe(44);
  });
});

describe('parseWorkload (sysbench)', () => {
  it('applies documented defaults: uniform keys pinned, prepared statements, 95th percentile, 1% ignored errors', () => {
    expect(parseWorkload(minimal, 'w.yml')).toEqual({
      name: 'w',
      description: '',
      tool: 'sysbench',
      script: 'oltp_read_only',
      tables: 1,
      tableSize: 10000,
      clients: [1, 4],
      duration: 60,
      warmup: 10,
      randType: 'uniform',
      psMode: 'auto',
      percentile: 95,
      maxIgnoredErrorsPct: 1,
      settings: {},
      vacuum: true,
      checkpoint: true,
      extraArgs: [],
      metrics: ['tps'],
      retries: 2,
    });
  });

  it.each([
    [
      'an unknown Lua script, listing the known ones',
      'name: w\ntool: sysbench\nscript: oltp_bogus\nclients: [1]\n',
      'w.yml:3:9: script: expected one of "oltp_read_only", "oltp_write_only", "oltp_read_write", "oltp_point_select", "oltp_update_index", "oltp_update_non_index", "oltp_insert", got "oltp_bogus"',
    ],
    [
      'a missing script',
      'name: w\ntool: sysbench\nclients: [1]\n',
      'w.yml:1:1: script: expected one of "oltp_read_only", "oltp_write_only", "oltp_read_write", "oltp_point_select", "oltp_update_index", "oltp_update_non_index", "oltp_insert", it is missing',
    ],
    ['a table size of 0', `${minimal}tableSize: 0\n`, 'w.yml:5:12: tableSize: expected a number > 0, got 0'],
    ['no tables', `${minimal}tables: 0\n`, 'w.yml:5:9: tables: expected a number > 0, got 0'],
    [
      'an empty threads list',
      'name: w\ntool: sysbench\nscript: oltp_read_only\nclients: []\n',
      'w.yml:4:10: clients: expected at least 1 entries, got []',
    ],
    [
      'repeated thread counts',
      'name: w\ntool: sysbench\nscript: oltp_read_only\nclients: [2, 2]\n',
      'w.yml:4:10: clients: client counts must not repeat, got [2,2]',
    ],
    [
      'an unknown rand-type',
      `${minimal}randType: zipfian\n`,
      'w.yml:5:11: randType: expected one of "uniform", "gaussian", "special", "pareto", got "zipfian"',
    ],
    [
      'an unknown ps-mode',
      `${minimal}psMode: on\n`,
      'w.yml:5:9: psMode: expected one of "auto", "disable", got "on"',
    ],
    [
      'percentile 0 (sysbench would not report one)',
      `${minimal}percentile: 0\n`,
      'percentile: expected a number >= 1, got 0',
    ],
    [
      'a negative ignored-errors threshold',
      `${minimal}maxIgnoredErrorsPct: -1\n`,
      'maxIgnoredErrorsPct: expected a number >= 0, got -1',
    ],
    ['a reserved setting', `${minimal}settings: {port: 5433}\n`, 'settings.port: "port" is set by pgperf'],
    [
      'a pgbench field, naming it as such and listing the sysbench keys',
      `${minimal}threads: 4\n`,
      'w.yml:5:1: unknown key "threads" (expected one of: name, description, tool, script, tables, tableSize, clients, randType, psMode, percentile, maxIgnoredErrorsPct, extraArgs, duration, warmup, rounds, settings, matrix, vacuum, checkpoint, threshold, metrics, failOn, retries, cpus, instructions, plans, coldStart); threads is a pgbench field',
    ],
    [
      'a sysbench field in a pgbench workload',
      'name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1]\ntableSize: 5\n',
      /w\.yml:5:1: unknown key "tableSize" \(expected one of: name, description, tool, builtin, .*\); tableSize is a sysbench field$/,
    ],
    [
      'an option a field owns, in extraArgs',
      `${minimal}extraArgs: ["--threads=8"]\n`,
      'w.yml:5:13: extraArgs[0]: "--threads" is set by the "clients" field (one cell per thread count), not in extraArgs, got "--threads=8"',
    ],
    [
      'an unknown tool, listing both',
      'name: w\ntool: hammerdb\nclients: [1]\n',
      'w.yml:2:7: tool: expected one of "pgbench", "sysbench", got "hammerdb"',
    ],
    [
      'a missing tool',
      'name: w\nscript: oltp_read_only\nclients: [1]\n',
      'w.yml:1:1: tool: expected one of "pgbench", "sysbench", it is missing',
    ],
  ])('rejects %s', (_what, text, message) => {
    expect(() => parseWorkload(text, 'w.yml')).toThrow(message);
  });

  it('lists every problem at once', () => {
    expect(() =>
      parseWorkload('name: w\ntool: sysbench\nscript: x\nclients: []\ntableSize: 0\n', 'w.yml'),
    ).toThrow(
      /^w\.yml: 3 problems:\n {2}w\.yml:3:9: script: .*\n {2}w\.yml:5:12: tableSize: .*\n {2}w\.yml:4:10: clients: /,
    );
  });
});

describe('checkSysbenchExtraArg', () => {
  it.each([
    ['--range-size=10', undefined],
    ['--point-selects=0', undefined],
    ['--point_selects=5', undefined],
    ['--skip-trx', undefined],
    ['--skip-trx=on', undefined],
    ['--secondary=off', undefined],
    ['--range-size', '"--range-size" needs a non-negative integer, written as --range-size=N'],
    ['--range-size=-1', '"--range-size" needs a non-negative integer'],
    ['--skip-trx=yes', '"--skip-trx" is on or off, written as --skip-trx=on or --skip-trx=off'],
    ['--rand-type=special', '"--rand-type" is set by the "randType" field, not in extraArgs'],
    ['--table_size=5', '"--table_size" is set by the "tableSize" field, not in extraArgs'],
    ['--percentile=99', '"--percentile" is set by the "percentile" field, not in extraArgs'],
    [
      '--rand-seed=1',
      '"--rand-seed" is set by pgperf (the same seed for every arm within a round), not in extraArgs',
    ],
    ['--pgsql-host=/tmp', '"--pgsql-host=/tmp" is not an allowed sysbench option (allowed: --range-size, '],
    ['--auto-inc=off', '"--auto-inc=off" is not an allowed sysbench option'],
  ])('%s', (arg, problem) => {
    const result = checkSysbenchExtraArg(arg);
    if (problem === undefined) expect(result).toBeUndefined();
    else expect(result).toContain(problem);
  });
});
