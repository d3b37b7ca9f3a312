import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workloadPath } from '../../../src/adapters/action/workloads.js';
import { workloadOptionHelp } from '../../../src/adapters/cli/flag-parsers.js';
import {
  defaultWorkloadsDir,
  resolveWorkloadFile,
  shippedWorkloadNames,
} from '../../../src/drivers/shipped-workloads.js';
import { loadWorkload } from '../../../src/drivers/load-workload.js';

const root = path.resolve(new URL('../../../', import.meta.url).pathname);
const shipped = path.join(root, 'workloads');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pgperf-workload-flag-'));
  // A workspace file with a shipped workload's name: an existing file is a file, whatever its name.
  await writeFile(
    path.join(dir, 'select-only'),
    'name: mine\ntool: pgbench\nbuiltin: select-only\nclients: [1]\n',
  );
  await mkdir(path.join(dir, 'sub'));
  await writeFile(
    path.join(dir, 'sub', 'w.yml'),
    'name: w\ntool: pgbench\nbuiltin: select-only\nclients: [2]\n',
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a workload reference (--workload, input workloads)', () => {
  it('finds the shipped workloads from the sources and from dist/', () => {
    expect(defaultWorkloadsDir()).toBe(shipped);
    expect(defaultWorkloadsDir(path.join(root, 'dist'))).toBe(shipped);
    expect(shippedWorkloadNames(shipped)).toEqual(
      expect.arrayContaining(['select-only', 'smoke', 'tpcb-like']),
    );
  });

  it('is a shipped workload by name, for the CLI and the Action alike', async () => {
    const cli = resolveWorkloadFile('select-only', { what: '--workload', baseDir: path.join(dir, 'sub') });
    expect(cli).toBe(path.join(shipped, 'select-only.yml'));
    expect(workloadPath('smoke', path.join(dir, 'sub'), root)).toBe(path.join(shipped, 'smoke.yml'));
    const w = await loadWorkload('select-only', { what: '--workload', baseDir: path.join(dir, 'sub') });
    expect(w.name).toBe('select-only');
  });

  it('is a file when one exists, relative to the base directory', async () => {
    expect(resolveWorkloadFile('select-only', { what: '--workload', baseDir: dir })).toBe(
      path.join(dir, 'select-only'),
    );
    expect(workloadPath('sub/w.yml', dir, root)).toBe(path.join(dir, 'sub', 'w.yml'));
    expect((await loadWorkload('sub/w.yml', { what: '--workload', baseDir: dir })).clients).toEqual([2]);
  });

  it.each([
    [
      'an unknown name',
      'select-onyl',
      /^--workload: 'select-onyl' is neither a file nor the name of a shipped workload \(shipped: .*select-only, .*smoke, .*tpcb-like[^)]*\); give one of those names or the path of a workload file \(\.yml\)$/,
    ],
    [
      'a missing file',
      'sub/nope.yml',
      /^--workload: workload file .*sub\/nope\.yml: cannot read it \(ENOENT\); give the path of a workload file, or the name of a shipped workload \(shipped: .*select-only.*\)$/,
    ],
    [
      'a directory',
      'sub',
      /^--workload: 'sub' is a directory, not a workload file, and no shipped workload has that name \(shipped: .*select-only.*\); give one of those names or the path of a workload file/,
    ],
  ])('refuses %s naming the value, the shipped names and that a path is accepted', (_, ref, message) => {
    expect(() => resolveWorkloadFile(ref, { what: '--workload', baseDir: dir })).toThrow(message);
  });

  it("words the Action's refusal after its input", () => {
    expect(() => workloadPath('select-onyl', dir, root)).toThrow(
      /^input 'workloads': 'select-onyl' is neither a file nor the name of a shipped workload \(shipped: /,
    );
  });

  it('lists the shipped names in the help of --workload', () => {
    expect(workloadOptionHelp()).toMatch(
      /^workload files, or names of shipped workloads: .*select-only, .*tpcb-like/,
    );
    expect(workloadOptionHelp('the workload: its file', true)).toMatch(
      /^the workload: its file, or the name of a shipped workload: /,
    );
  });
});
