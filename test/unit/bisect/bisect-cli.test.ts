/** `pgperf bisect` bad input: refused before any build or git access, naming the flag and what is expected. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain as cli } from '../../helpers/main-in-process.js';

let dir: string;
let multi: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'bisect-cli-'));
  multi = path.join(dir, 'multi.yml');
  await writeFile(
    multi,
    'name: multi\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1, 8]\nduration: 1\nrounds: 6\n',
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// A repository that does not exist: any case that got as far as git would fail differently.
// --no-store: nothing here may write to the default store in HOME.
const base = () => [
  'bisect',
  '--repo',
  path.join(dir, 'no-repo'),
  '--good',
  'a',
  '--bad',
  'b',
  '--out',
  dir,
  '--no-store',
];

describe('pgperf bisect bad input', () => {
  it.each([
    [
      ['--workload', '@multi'],
      /--clients: workload multi measures clients 1, 8; a bisection measures one: give --clients N/,
    ],
    [
      ['--workload', '@multi', '--clients', '1', '--time-budget', '30m'],
      '--time-budget: a bisection runs several A/B tests; bound each with --max-rounds N instead',
    ],
    [
      ['--workload', '@multi', '--clients', '1', '--rounds', '6', '--max-rounds', '20'],
      '--rounds and --max-rounds both given: adaptive tests take their rounds from the looks',
    ],
    [['--workload', '@multi', '--clients', '0'], /--clients/],
    [['--workload', '@multi', '--clients', '1', '--tries', '0'], /--tries/],
  ] as [string[], string | RegExp][])('%j', async (args, message) => {
    const ran = await cli([...base(), ...args.map((a) => (a === '@multi' ? multi : a))]);
    expect(ran.code).toBe(2); // a usage error, whether pgperf's checks or commander's flag parsers refuse it
    if (typeof message === 'string') expect(ran.stderr).toContain(message);
    else expect(ran.stderr).toMatch(message);
  });

  it('requires --good, --bad and --workload', async () => {
    const ran = await cli(['bisect', '--bad', 'b', '--workload', multi]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/--good/);
  });

  it('a repository that is not there is named (the first thing that touches git)', async () => {
    const ran = await cli([
      ...base(),
      '--workload',
      multi,
      '--clients',
      '1',
      '--cache-dir',
      path.join(dir, 'cache'),
    ]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`--repo ${path.join(dir, 'no-repo')}: no such directory`);
  });
});
