/**
 * Settings matrices (src/drivers/common/settings-matrix.ts) through the real workload loader: a workload
 * with `matrix` is one workload per combination of values, named after them, with them in its settings;
 * every bad matrix is refused naming the file, line, column, field, the bad value and what is expected.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MATRIX_COMBINATIONS,
  expandMatrix,
  matrixCellName,
  matrixCombinations,
} from '../../../src/drivers/common/settings-matrix.js';
import {
  loadWorkloadFile,
  loadWorkloadsFromFile,
  parseWorkload,
  parseWorkloads,
} from '../../../src/drivers/load-workload.js';
import { UserError } from '../../../src/core/util/errors.js';
import { useTmpDir } from '../../helpers/tmp-dir.js';

/** A select-only workload named seqscan (4 lines), then `rest`. */
const withMatrix = (rest: string) =>
  `name: seqscan\ntool: pgbench\nbuiltin: select-only\nclients: [1, 4]\n${rest}`;

/** The message parseWorkloads refuses the text with (or fails the test). */
function refusal(text: string): string {
  try {
    parseWorkloads(text, 'w.yml');
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return (e as Error).message;
  }
  throw new Error('not refused');
}

describe('a workload with a matrix', () => {
  const tmp = useTmpDir('pgperf-matrix-');
  it('is one workload per combination, the first setting outermost, named after its values', () => {
    const ws = parseWorkloads(
      withMatrix('settings:\n  jit: off\nmatrix:\n  io_method: [sync, worker]\n  io_workers: [3, 8]\n'),
      'w.yml',
    );
    expect(ws.map((w) => w.name)).toEqual([
      'seqscan[io_method=sync,io_workers=3]',
      'seqscan[io_method=sync,io_workers=8]',
      'seqscan[io_method=worker,io_workers=3]',
      'seqscan[io_method=worker,io_workers=8]',
    ]);
    // The combination's values join the workload's own settings, as written (a number stays a number).
    expect(ws[1]!.settings).toEqual({ jit: 'off', io_method: 'sync', io_workers: 8 });
    expect(ws[2]!.settings).toEqual({ jit: 'off', io_method: 'worker', io_workers: 3 });
    for (const w of ws) {
      // Everything else is the workload's, and no cell carries the matrix on.
      expect(w).not.toHaveProperty('matrix');
      expect(w.clients).toEqual([1, 4]);
      expect(w.tool).toBe('pgbench');
    }
  });

  it('of one setting is a workload per value; booleans and numbers are named as written', () => {
    const ws = parseWorkloads(
      withMatrix('matrix:\n  jit: [false, true]\n  random_page_cost: [1.1, 4]\n'),
      'w.yml',
    );
    expect(ws.map((w) => w.name)).toEqual([
      'seqscan[jit=false,random_page_cost=1.1]',
      'seqscan[jit=false,random_page_cost=4]',
      'seqscan[jit=true,random_page_cost=1.1]',
      'seqscan[jit=true,random_page_cost=4]',
    ]);
    expect(ws[3]!.settings).toEqual({ jit: true, random_page_cost: 4 });
  });

  it('takes the most combinations the bound allows', () => {
    const values = Array.from({ length: 8 }, (_, i) => `${i + 1}MB`).join(', ');
    const ws = parseWorkloads(
      withMatrix(`matrix:\n  work_mem: [${values}]\n  temp_buffers: [${values}]\n`),
      'w.yml',
    );
    expect(ws).toHaveLength(MATRIX_COMBINATIONS.max);
    expect(new Set(ws.map((w) => w.name)).size).toBe(MATRIX_COMBINATIONS.max);
  });

  it('is a sysbench field too', () => {
    const ws = parseWorkloads(
      'name: sb\ntool: sysbench\nscript: oltp_read_only\nclients: [1]\nmatrix:\n  work_mem: [4MB, 64MB]\n',
      'w.yml',
    );
    expect(ws.map((w) => [w.name, w.settings])).toEqual([
      ['sb[work_mem=4MB]', { work_mem: '4MB' }],
      ['sb[work_mem=64MB]', { work_mem: '64MB' }],
    ]);
  });

  it('without a matrix is the workload alone, unchanged', () => {
    const text = withMatrix('settings:\n  jit: off\n');
    expect(parseWorkloads(text, 'w.yml')).toEqual([parseWorkload(text, 'w.yml')]);
  });

  it('is refused where one workload is expected, naming the workloads it makes', () => {
    expect(() => parseWorkload(withMatrix('matrix:\n  io_method: [sync, worker]\n'), 'w.yml')).toThrow(
      'w.yml:5:1: matrix: expected one workload here, and the matrix makes 2 (seqscan[io_method=sync], seqscan[io_method=worker]): write the one to measure as a workload file without matrix, its values in settings',
    );
  });

  it('from a file: every cell has the script paths resolved', async () => {
    const dir = tmp();
    await mkdir(path.join(dir, 'scripts'));
    await writeFile(path.join(dir, 'scripts', 'q.sql'), 'SELECT 1;\n');
    const file = path.join(dir, 'q.yml');
    await writeFile(
      file,
      'name: q\ntool: pgbench\nscripts: [{file: scripts/q.sql}]\nclients: [1]\nmatrix:\n  work_mem: [4MB, 64MB]\n',
    );
    const ws = await loadWorkloadsFromFile(file);
    expect(ws.map((w) => w.name)).toEqual(['q[work_mem=4MB]', 'q[work_mem=64MB]']);
    for (const w of ws) {
      expect(w.tool === 'pgbench' && w.scripts?.[0]?.file).toBe(path.join(dir, 'scripts', 'q.sql'));
    }
    await expect(loadWorkloadFile(file)).rejects.toThrow(`${file}:5:1: matrix: expected one workload here`);
  });
});

describe('a bad matrix is refused, naming the file, line, field, bad value and what is expected', () => {
  it.each([
    [
      'no setting',
      'matrix: {}\n',
      'w.yml:5:9: matrix: expected at least one setting with its values, e.g. {io_method: [sync, worker]}, got {}',
    ],
    ['not a mapping', 'matrix: [io_method]\n', 'w.yml:5:9: matrix: expected record, got ["io_method"]'],
    [
      'an empty list',
      'matrix:\n  io_method: []\n',
      'w.yml:6:14: matrix.io_method: expected a non-empty list of values, e.g. [sync, worker], got []',
    ],
    [
      'a value, not a list',
      'matrix:\n  io_method: sync\n',
      'w.yml:6:14: matrix.io_method: expected array, got "sync"',
    ],
    [
      'a value that is no scalar',
      'matrix:\n  io_method: [sync, {a: 1}]\n',
      'w.yml:6:21: matrix.io_method[1]: expected a string, number or boolean, got {"a":1}',
    ],
    [
      'a value that cannot be part of a name',
      'matrix:\n  search_path: [public, "a, b"]\n',
      `w.yml:6:25: matrix.search_path[1]: expected a value made of letters, digits, ".", "_", "+" and "-" (it becomes part of the workload's name), got "a, b"`,
    ],
    [
      'a value twice',
      'matrix:\n  io_method: [sync, sync]\n',
      'w.yml:6:21: matrix.io_method[1]: expected each value once in matrix.io_method (it is also matrix.io_method[0]), got "sync"',
    ],
    [
      'a name that is no setting name',
      'matrix:\n  io-method: [sync]\n',
      'w.yml:6:3: matrix.io-method: expected a setting name like shared_buffers as the key, got "io-method"',
    ],
    [
      'a name not in lower case',
      'matrix:\n  IO_Method: [sync]\n',
      'w.yml:6:14: matrix.IO_Method: "IO_Method" is not a setting name as pgperf takes them: write it in lower case like shared_buffers or auto_explain.log_min_duration (PostgreSQL would read it as io_method), got ["sync"]',
    ],
    [
      'a setting pgperf sets',
      'matrix:\n  port: [5432, 5433]\n',
      'w.yml:6:9: matrix.port: "port" is set by pgperf for every cluster and cannot be overridden: pgperf picks a free port for each cluster, got [5432,5433]',
    ],
    [
      'a setting also in settings',
      'settings:\n  work_mem: 4MB\nmatrix:\n  work_mem: [4MB, 64MB]\n',
      'w.yml:8:13: matrix.work_mem: expected a setting not also given in settings (settings.work_mem is "4MB"; give it in one of the two), got ["4MB","64MB"]',
    ],
    [
      'more combinations than the bound',
      'matrix:\n  work_mem: [1MB, 2MB, 3MB, 4MB, 5MB]\n  temp_buffers: [1MB, 2MB, 3MB, 4MB, 5MB]\n  jit: [on, off, "true"]\n',
      'w.yml:6:3: matrix: expected from 1 to 64 combinations of values, each a workload of its own (sweep fewer values, or split the matrix over workload files); these lists make 5 x 5 x 3 = 75, got {"work_mem":["1MB","2MB","3MB","4MB","5MB"],"temp_buffers":["1MB","2MB","3MB","4MB","5MB"],"jit":["… (a mapping of 3 keys)',
    ],
  ])('%s', (_what, rest, message) => {
    expect(refusal(withMatrix(rest))).toBe(message);
  });

  it('a setting pgperf refuses is refused as in settings', () => {
    expect(refusal(withMatrix('matrix:\n  dynamic_library_path: [a, b]\n'))).toMatch(
      /^w\.yml:6:\d+: matrix\.dynamic_library_path: "dynamic_library_path" is refused: .*; remove it, got \["a","b"\]$/,
    );
  });
});

describe('expandMatrix and its parts', () => {
  it('combinations: the product of the lists, in order', () => {
    expect(matrixCombinations({ a: [1, 2], b: ['x'], c: [true, false] })).toEqual([
      [
        ['a', 1],
        ['b', 'x'],
        ['c', true],
      ],
      [
        ['a', 1],
        ['b', 'x'],
        ['c', false],
      ],
      [
        ['a', 2],
        ['b', 'x'],
        ['c', true],
      ],
      [
        ['a', 2],
        ['b', 'x'],
        ['c', false],
      ],
    ]);
  });

  it('names: name[setting=value,...]', () => {
    expect(
      matrixCellName('ro', [
        ['io_method', 'sync'],
        ['io_workers', 3],
      ]),
    ).toBe('ro[io_method=sync,io_workers=3]');
  });

  it('leaves a workload without a matrix as it is (the same object)', () => {
    const w = { name: 'ro', settings: { jit: 'off' } };
    expect(expandMatrix(w)[0]).toBe(w);
  });
});
