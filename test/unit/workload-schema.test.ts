import { mkdir, readdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkloadFile, parseWorkload } from '../../src/drivers/load-workload.js';
import { checkExtraArg } from '../../src/drivers/pgbench/pgbench-workload.js';
import { workloadJsonSchema } from '../../src/drivers/workload.js';
import { designReach } from '../../src/flows/compare/noise/design-check.js';
import { designSequential } from '../../src/core/compare/analysis/adaptive.js';
import { roundsOf } from '../../src/drivers/common/workload-fields.js';
import { useTmpDir } from '../helpers/tmp-dir.js';

const workloadsDir = new URL('../../workloads/', import.meta.url).pathname;

const minimal = 'name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1, 4]\n';

describe('shipped workloads', async () => {
  const files = (await readdir(workloadsDir)).filter((f) => f.endsWith('.yml'));

  it('include the ones the docs promise', () => {
    expect(files.sort()).toEqual(
      expect.arrayContaining([
        'ecommerce-order.yml',
        'select-only-pipelined.yml',
        'select-only.yml',
        'smoke.yml',
        'tpcb-like.yml',
      ]),
    );
  });

  it.each(files)('%s validates, and its name is unique', async (file) => {
    const w = await loadWorkloadFile(path.join(workloadsDir, file));
    expect(w.name).toBe(file.replace(/\.yml$/, ''));
    if (w.tool === 'pgbench') for (const s of w.scripts ?? []) expect(path.isAbsolute(s.file)).toBe(true);
  });

  it('sweep clients 1..64 in select-only and tpcb-like, as in the classic write-ups', async () => {
    for (const f of ['select-only.yml', 'tpcb-like.yml']) {
      const w = await loadWorkloadFile(path.join(workloadsDir, f));
      expect(w.clients).toEqual([1, 2, 4, 8, 16, 32, 64]);
    }
  });

  it.each(files)(
    '%s as a run plans it (its own rounds, else adaptive by default) can reach significance (two arms, α 0.05)',
    async (file) => {
      const w = await loadWorkloadFile(path.join(workloadsDir, file));
      const adaptive = w.rounds === undefined ? { adaptive: designSequential({}) } : {};
      expect(designReach({ workloads: [w], arms: 2, alpha: 0.05, ...adaptive }).reachable).toBe(true);
    },
  );

  it('workload.schema.json is the schema pgperf validates with (regenerate: pgperf schema)', async () => {
    const onDisk = JSON.parse(await readFile(path.join(workloadsDir, 'workload.schema.json'), 'utf8'));
    expect(onDisk).toEqual(workloadJsonSchema());
  });
});

describe('parseWorkload', () => {
  it('applies documented defaults', () => {
    const w = parseWorkload(minimal, 'w.yml');
    expect(w).toMatchObject({
      queryMode: 'prepared',
      threads: 'auto',
      duration: 60,
      warmup: 10,
      scale: 10,
      vacuum: true,
      checkpoint: true,
      retries: 2,
      settings: {},
      init: { steps: 'dtgvp', partitions: 0, fillfactor: 100, unloggedTables: false },
    });
    // Rounds unset stay unset: a comparison's are then adaptive, fixed ones the default (roundsOf).
    expect(w.rounds).toBeUndefined();
    expect(roundsOf(w)).toBe(10);
    expect(roundsOf(parseWorkload(`${minimal}rounds: 8\n`, 'w.yml'))).toBe(8);
  });

  it.each([
    [
      'an unknown key, with its line and the known keys',
      `${minimal}clinets: 3\n`,
      /w\.yml:5:1: unknown key "clinets" \(expected one of: name, .*clients/,
    ],
    [
      // Inside a union (a boolean or an object): the object's keys, not an empty list.
      'an unknown key of the instruction settings, with the keys they take',
      `${minimal}instructions: {thresholdPct: 1}\n`,
      /w\.yml:5:16: instructions: unknown key "thresholdPct" \(expected one of: short, long, warmup, repetitions, threshold\)/,
    ],
    [
      'an unknown key of cpus ("auto" or an object), with the keys it takes',
      `${minimal}cpus: {server: "0", client: "1", x: 1}\n`,
      /cpus: unknown key "x" \(expected one of: server, client\)/,
    ],
    [
      'a wrong type',
      'name: w\ntool: pgbench\nbuiltin: select-only\nclients: "4"\n',
      /w\.yml:4:10: clients: expected array, got "4"/,
    ],
    [
      'an empty clients list',
      'name: w\ntool: pgbench\nbuiltin: select-only\nclients: []\n',
      /clients: expected at least 1 entries, got \[\]/,
    ],
    [
      'a non-positive client count',
      'name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1, 0]\n',
      /w\.yml:4:14: clients\[1\]: expected a number > 0, got 0/,
    ],
    [
      'a fractional client count',
      'name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1.5]\n',
      /clients\[0\]: expected int, got 1.5/,
    ],
    [
      'an unknown builtin',
      'name: w\ntool: pgbench\nbuiltin: select\nclients: [1]\n',
      /builtin: expected one of "tpcb-like", "simple-update", "select-only", got "select"/,
    ],
    [
      'an unknown tool',
      'name: w\ntool: hammerdb\nbuiltin: select-only\nclients: [1]\n',
      /tool: expected one of "pgbench", "sysbench", got "hammerdb"/,
    ],
    [
      'both builtin and scripts',
      `${minimal}scripts: [{file: a.sql}]\n`,
      /scripts: set exactly one of "builtin"/,
    ],
    [
      'neither builtin nor scripts',
      'name: w\ntool: pgbench\nclients: [1]\n',
      /w\.yml:1:1: set exactly one of "builtin"/,
    ],
    [
      'repeated client counts',
      'name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1, 1]\n',
      /clients: client counts must not repeat/,
    ],
    ['a reserved setting', `${minimal}settings: {port: 5433}\n`, /settings\.port: "port" is set by pgperf/],
    [
      'an extra option outside the allow-list',
      `${minimal}extraArgs: ["-c", "9"]\n`,
      /extraArgs\[0\]: "-c" is not an allowed pgbench option/,
    ],
    [
      'pipelining with simple query mode',
      `${minimal}pipeline: 5\nqueryMode: simple\n`,
      /queryMode: pipelining needs queryMode extended or prepared/,
    ],
    ['invalid YAML', 'name: w\nclients: [1, 2\n', /w\.yml:\d+:\d+: invalid YAML/],
    ['a list instead of a mapping', '- 1\n- 2\n', /w\.yml: expected a mapping of workload fields/],
  ])('rejects %s', (_what, text, message) => {
    expect(() => parseWorkload(text, 'w.yml')).toThrow(message);
  });

  it('lists every problem at once', () => {
    expect(() =>
      parseWorkload('name: w\ntool: pgbench\nbuiltin: x\nclients: [0]\nbogus: 1\n', 'w.yml'),
    ).toThrow(/w\.yml: 3 problems:\n/);
  });
});

describe('loadWorkloadFile', () => {
  const tmp = useTmpDir('pgperf-wl-', { perTest: true });
  it('names a missing custom script and where it was looked for', async () => {
    const dir = tmp();
    const file = path.join(dir, 'w.yml');
    await writeFile(file, 'name: w\ntool: pgbench\nscripts:\n  - file: nope.sql\nclients: [1]\n');
    await expect(loadWorkloadFile(file)).rejects.toThrow(
      `${file}: scripts[0].file: script "nope.sql" refused: not found (looked for ${path.join(dir, 'nope.sql')}`,
    );
  });

  it.each([
    ['an absolute path', () => '/etc/passwd', /absolute paths are not allowed/],
    ['a path that climbs out', () => '../../../../../../etc/passwd', /leads out of the workload's directory/],
    [
      'a symlink that leads out',
      () => 'link.sql',
      /leads out of the workload's directory .* \(to \/etc\/passwd\)/,
    ],
  ])('refuses %s before anything starts, naming the file and the rule', async (_what, name, message) => {
    const dir = tmp();
    await symlink('/etc/passwd', path.join(dir, 'link.sql'));
    const file = path.join(dir, 'w.yml');
    await writeFile(file, `name: w\ntool: pgbench\nscripts:\n  - file: ${name()}\nclients: [1]\n`);
    await expect(loadWorkloadFile(file)).rejects.toThrow(message);
    await expect(loadWorkloadFile(file)).rejects.toThrow(
      `${file}: scripts[0].file: script "${name()}" refused`,
    );
  });

  it('takes a script in a subdirectory of the workload, symlinks inside the tree included', async () => {
    const dir = tmp();
    await mkdir(path.join(dir, 'scripts'));
    await writeFile(path.join(dir, 'scripts', 'a.sql'), 'SELECT 1;\n');
    await symlink(path.join(dir, 'scripts', 'a.sql'), path.join(dir, 'b.sql'));
    const file = path.join(dir, 'w.yml');
    await writeFile(
      file,
      'name: w\ntool: pgbench\nscripts:\n  - file: scripts/a.sql\n  - file: b.sql\nclients: [1]\n',
    );
    const w = await loadWorkloadFile(file);
    const real = await realpath(path.join(dir, 'scripts', 'a.sql'));
    expect(w.tool === 'pgbench' && w.scripts?.map((s) => s.file)).toEqual([real, real]);
  });

  it('names a missing workload file', async () => {
    await expect(loadWorkloadFile('/nonexistent/w.yml')).rejects.toThrow(
      'workload file /nonexistent/w.yml: cannot read it (ENOENT)',
    );
  });
});

describe('checkExtraArg', () => {
  it.each([
    ['--max-tries=3', undefined],
    ['--failures-detailed', undefined],
    ['--rate', /needs a value/],
    ['--connect=1', /takes no value/],
    ['--client=4', /not an allowed pgbench option/],
  ])('%s', (arg, problem) => {
    const result = checkExtraArg(arg);
    if (problem === undefined) expect(result).toBeUndefined();
    else expect(result).toMatch(problem);
  });
});
