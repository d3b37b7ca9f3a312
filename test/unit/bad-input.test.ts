/**
 * Bad input, table-driven: every case is refused before anything starts, with a message that names
 * the flag, input, file or field, the bad value and what is expected; and nothing is left behind (no
 * new pgperf temp directory, no postgres process, no results file). Cases run the real parsers: the
 * commander program for CLI flags, parseInputs with INPUT_-style names for Action inputs, the workload
 * loader for YAML, readContext for event payloads.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readContext } from '../../src/adapters/action/context.js';
import { parseInputs } from '../../src/adapters/action/inputs.js';
import { main } from '../../src/adapters/cli/commands/main.js';
import { checkOutDir, checkTmpDir } from '../../src/adapters/cli/validate.js';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import { shippedWorkloadFile } from '../../src/drivers/shipped-workloads.js';
import { parsePgperfCommand } from '../../src/core/pgperf-command.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { processesMentioning } from '../../testkit/postgres.js';
import { sameInstallRun } from '../helpers/cli.js';

const root = new URL('../../', import.meta.url).pathname;
let dir: string;
let aFile: string;
let savedTmpdir: string | undefined;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'bad-input-'));
  await mkdir(path.join(dir, 'tmp'));
  savedTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = path.join(dir, 'tmp');
  aFile = path.join(dir, 'a-file');
  await writeFile(aFile, 'x');
});
afterAll(async () => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  await rm(dir, { recursive: true, force: true });
});

/**
 * pgperf temp dirs and processes, to check that a refused input left nothing behind. The cases run with
 * a private TMPDIR, so temp dirs of tests running beside this file are not counted.
 */
async function leftovers(): Promise<string[]> {
  const tmp = (await readdir(os.tmpdir())).filter((f) => /^pgperf-/.test(f));
  return [...tmp, ...processesMentioning(dir).map(String)];
}

/** Runs the CLI in-process; returns the exit code and what it wrote to stderr. */
async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const write = process.stderr.write.bind(process.stderr);
  const writeOut = process.stdout.write.bind(process.stdout);
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stdout.write;
  try {
    const code = await main(args);
    return { code, stderr };
  } finally {
    process.stderr.write = write;
    process.stdout.write = writeOut;
    process.exitCode = undefined;
  }
}

const bin = '/usr/lib/postgresql/15/bin';
const wl = () => path.join(root, 'workloads/smoke.yml');

/** A case: its name, the attempt, and what the refusal must say (a pattern, or text it must contain). */
type Case = [string, () => Promise<unknown> | unknown, RegExp | string];

/** `pgperf run` with these flags and the smoke workload. */
const run =
  (...flags: string[]) =>
  () =>
    cli(['run', ...flags, '--workload', wl()]);

/** A flag of `pgperf run` that takes a positive integer, given something else. */
const notPositiveInteger = ([flag, value]: readonly [string, string]): Case => [
  `${flag} ${value}`,
  run(flag, value),
  `${flag} must be a positive integer, got '${value}'`,
];

/** One arm compared against the stored baseline. */
const storedBaseline = ['--arm', `head=${bin}`, '--baseline', 'stored'];

const cliCases: Case[] = [
  [
    'a sharded run against a stored baseline',
    run(...storedBaseline, '--shard', '1/2', '--seed', '1'),
    /--shard and --baseline stored both given: a sharded comparison measures base and head in each shard/,
  ],
  [
    'a stored baseline with adaptive rounds',
    // The store's path is known only once the tests run.
    () => run(...storedBaseline, '--max-rounds', '20', '--store', path.join(dir, 'store'))(),
    /--baseline stored and --max-rounds\/--time-budget both given: a stored baseline is compared once, give --rounds/,
  ],
  ['--arm without =', run('--arm', 'base'), /--arm must be LABEL=BINDIR .*got 'base'/],
  ...(
    [
      ['--rounds', '0'],
      ['--rounds', 'x'],
      ['--duration', '-1'],
      ['--seed', '1.5'],
    ] as const
  ).map(notPositiveInteger),
  ['--order zigzag', run('--order', 'zigzag'), /--order must be one of random, abba, got 'zigzag'/],
  // Sizes past their bounds (src/core/bounds.ts): refused while the flags are parsed, so no plan is built
  // and no server starts (the old code took --rounds 999999999 and built its plan for minutes).
  [
    '--rounds 999999999',
    run('--rounds', '999999999'),
    /^error: option '--rounds <n>' argument '999999999' is invalid\. --rounds must be a whole number from 1 to 1000, got '999999999'/,
  ],
  [
    '--max-rounds 999999999',
    run('--max-rounds', '999999999'),
    /--max-rounds must be a whole number from 1 to 1000/,
  ],
  [
    '--duration 999999999',
    run('--duration', '999999999'),
    /--duration must be a whole number from 1 to 86400/,
  ],
  [
    '--confirm-rounds 5000',
    run('--confirm-rounds', '5000'),
    /--confirm-rounds must be a whole number from 0 to 1000, got '5000'/,
  ],
  [
    '--schedule with a huge look',
    run('--schedule', '6,999999999'),
    /--schedule looks must be round counts from 1 to 1000/,
  ],
  [
    '--time-budget 9999h',
    run('--time-budget', '9999h'),
    /--time-budget must be at most 604800 s \(7 days\), got '9999h'/,
  ],
  [
    'bisect --clients 999999999',
    () => cli(['bisect', '--good', 'a', '--bad', 'b', '--workload', wl(), '--clients', '999999999']),
    /--clients must be a whole number from 1 to 10000, got '999999999'/,
  ],
  [
    'bisect --tries 40 (each try doubles the rounds)',
    () => cli(['bisect', '--good', 'a', '--bad', 'b', '--workload', wl(), '--tries', '40']),
    /--tries must be a whole number from 1 to 5, got '40'/,
  ],
  ['--set without arm', run('--set', 'work_mem=4MB'), /--set must be ARM:NAME=VALUE .*got 'work_mem=4MB'/],
  ['--set head:port=5432', run('--set', 'head:port=5432'), /--set head:port: "port" is set by pgperf/],
  ['--set head:hba_file', run('--set', 'head:hba_file=/tmp/x'), /"hba_file" is set by pgperf/],
  ['--set multi-line value', run('--set', "head:work_mem=4MB\nhba_file='/tmp/x'"), /must be a single line/],
  ['--set bad name', run('--set', 'head:Work-Mem=1'), /"Work-Mem" is not a setting name/],
  [
    '--set library path',
    run('--set', 'head:shared_preload_libraries=/tmp/x.so'),
    /library names .* not paths/,
  ],
  [
    'missing workload file',
    () => cli(['run', '--arm', `a=${bin}`, '--arm', `b=${bin}`, '--workload', path.join(dir, 'nope.yml')]),
    /workload file .*nope\.yml: cannot read it \(ENOENT\)/,
  ],
  ['no arms', run(), /nothing to run: give the arms as --arm LABEL=BINDIR/],
  ['unknown command', () => cli(['frobnicate']), /unknown command 'frobnicate'/],
  [
    'stat empty file',
    async () => {
      const empty = path.join(dir, 'empty.txt');
      await writeFile(empty, '\n# only a comment\n');
      return cli(['stat', empty, empty]);
    },
    /empty\.txt: no values .*expected one number per line/,
  ],
  [
    'stat --alpha 2',
    () => cli(['stat', aFile, aFile, '--alpha', '2']),
    /--alpha must be a number between 0 and 1, got '2'/,
  ],
  ['stat not a number', () => cli(['stat', aFile, aFile]), /a-file line 1: 'x' is not a number/],
  [
    '--tmp-dir missing',
    () => checkTmpDir(path.join(dir, 'missing')),
    /--tmp-dir .*missing: no such directory/,
  ],
  ['--tmp-dir a file', () => checkTmpDir(aFile), /--tmp-dir .*a-file: not a directory/],
  ['--out a file', () => checkOutDir(aFile), /--out .*a-file: is a file; expected a directory/],
  // Paths that cannot hold files, refused at once with the OS error before anything starts (every
  // directory flag of every command: bad-input-sweep.test.ts). --out /proc/x used to build and load both
  // clusters, then spin for ever in node's recursive mkdir; --out /sys/x failed after both were set up.
  [
    '--out /proc/x',
    run('--arm', `a=${bin}`, '--arm', `b=${bin}`, '--no-store', '--out', '/proc/x'),
    /^pgperf: --out \/proc\/x: cannot create \/proc\/x: ENOENT \(no such file or directory\); \/proc is the kernel's proc file system, not a place for files: choose a directory on a disk; expected a directory for the results \(created if missing\)$/m,
  ],
  [
    '--out /sys/x',
    run('--arm', `a=${bin}`, '--arm', `b=${bin}`, '--no-store', '--out', '/sys/x'),
    /^pgperf: --out \/sys\/x: cannot create \/sys\/x: E(PERM|ACCES|ROFS) \(.+\); \/sys is the kernel's sysfs file system/m,
  ],
  [
    '--tmp-dir /proc/x',
    () => checkTmpDir('/proc/x'),
    /^--tmp-dir \/proc\/x: no such directory \(ENOENT\); create it or choose another/,
  ],
  [
    '--workload /dev/zero (a device read for ever)',
    () => cli(['run', '--arm', `a=${bin}`, '--arm', `b=${bin}`, '--workload', '/dev/zero']),
    /workload file \/dev\/zero: is a character device, expected a YAML workload file/,
  ],
  [
    '--workload a directory',
    () => cli(['run', '--arm', `a=${bin}`, '--arm', `b=${bin}`, '--workload', dir]),
    /--workload: '.*bad-input-.*' is a directory, not a workload file/,
  ],
  [
    'a single --arm',
    () => cli(['run', '--arm', `base=${bin}`, '--workload', 'select-only']),
    /--arm given once: a comparison needs two or more arms/,
  ],
  [
    '--set for an unknown arm',
    () => cli(sameInstallRun(bin, { workload: 'select-only', set: ['hed:work_mem=64MB'] })),
    /--set hed:work_mem=64MB: no arm is labelled "hed" \(arms: base, head\)/,
  ],
  [
    'nightly --raise-after without --triage-digest',
    () =>
      cli([
        ...['nightly', '--bin', bin, '--workload', wl(), '--raise-after', '5'],
        ...['--store', path.join(dir, 'files', 'store'), '--out', path.join(dir, 'files', 'out')],
      ]),
    '--raise-after (5) shapes the triage digest: give --triage-digest too, or remove it',
  ],
  // Bounds on products (issue #40): each factor within its own bound, the plan 128 million runs.
  [
    '10 workload files x 64 matrix combinations x 100 client counts x 1000 rounds',
    async () => {
      const clients = Array.from({ length: 100 }, (_, i) => i + 1).join(', ');
      const eight = Array.from({ length: 8 }, (_, i) => i + 1).join(', ');
      const files = [];
      for (let i = 0; i < 10; i++) {
        const file = path.join(dir, `product-${i}.yml`);
        await writeFile(
          file,
          `name: p${i}\ntool: pgbench\nbuiltin: select-only\nclients: [${clients}]\nrounds: 1000\nmatrix: {effective_io_concurrency: [${eight}], random_page_cost: [${eight}]}\n`,
        );
        files.push(file);
      }
      return cli(['run', '--arm', `a=${bin}`, '--arm', `b=${bin}`, '--workload', ...files]);
    },
    /^pgperf: the plan is too large: 10 workload files x 64 matrix combinations x 100 client counts x \(1,000 rounds \+ 6 confirmation rounds\) x 2 arms = 128,768,000 runs; at most 20,000 .*\(--rounds\)/m,
  ],
  [
    '--rounds 1000 --clients of 100 counts: 1000 x 100 x 2 runs of one workload',
    run(
      '--arm',
      `a=${bin}`,
      '--arm',
      `b=${bin}`,
      '--rounds',
      '1000',
      '--clients',
      Array.from({ length: 100 }, (_, i) => i + 1).join(','),
    ),
    /the plan is too large: 1 workload file x 100 client counts x \(1,000 rounds \+ 6 confirmation rounds\) x 2 arms = 201,200 runs/,
  ],
  [
    '--duration 86400 x 10 rounds: too long',
    run(
      '--arm',
      `a=${bin}`,
      '--arm',
      `b=${bin}`,
      '--duration',
      '86400',
      '--rounds',
      '10',
      '--confirm-rounds',
      '0',
    ),
    /the plan is too long: .* x 10 rounds x 2 arms = \d+ runs, measuring at least [\d,]+ h .*at most 168 h \(7 days\) of measurement: .*or shorter runs \(--duration\)/,
  ],
];

const defaults: Record<string, string> = { 'github-token': 'ghs_x', mode: 'benchmark' };
const action = (inputs: Record<string, string>) => () =>
  parseInputs((name) => ({ ...defaults, ...inputs })[name] ?? '');

const actionCases: Case[] = [
  [
    'raise-after without triage-digest',
    action({ mode: 'nightly', 'raise-after': '5' }),
    "input 'raise-after' (5) shapes the triage digest: give 'triage-digest: true' too, or remove it",
  ],
  [
    'mode',
    action({ mode: 'bench' }),
    /input 'mode' must be one of benchmark, comment, nightly, consolidate, calibrate, bisect, command, attribute, got 'bench'/,
  ],
  [
    'fail-on',
    action({ 'fail-on': 'always' }),
    /input 'fail-on' must be one of regression, inconclusive, never, got 'always'/,
  ],
  ['rounds', action({ rounds: 'many' }), /input 'rounds' must be a whole number >= 1, got 'many'/],
  ['duration 0', action({ duration: '0' }), /input 'duration' must be a whole number >= 1, got '0'/],
  [
    'rounds 999999999',
    action({ rounds: '999999999' }),
    /^input 'rounds' must be a whole number from 1 to 1000, got '999999999'$/,
  ],
  [
    'max-rounds 999999999',
    action({ 'max-rounds': '999999999' }),
    /input 'max-rounds' must be a whole number from 1 to 1000, got '999999999'/,
  ],
  [
    'duration 999999999',
    action({ duration: '999999999' }),
    /input 'duration' must be a whole number from 1 to 86400, got '999999999'/,
  ],
  [
    'confirm-rounds 5000',
    action({ 'confirm-rounds': '5000' }),
    /input 'confirm-rounds' must be a whole number from 0 to 1000, got '5000'/,
  ],
  [
    'client-counts 999999999',
    action({ 'client-counts': '1,999999999' }),
    /input 'client-counts': each client count must be a whole number from 1 to 10000, got '999999999'/,
  ],
  [
    'client-counts, 101 of them',
    action({ 'client-counts': Array.from({ length: 101 }, (_, i) => i + 1).join(',') }),
    /input 'client-counts' must be at most 100 client counts, got 101/,
  ],
  [
    'clients 999999999 (bisect)',
    action({ mode: 'bisect', clients: '999999999' }),
    /input 'clients' must be a whole number from 1 to 10000, got '999999999'/,
  ],
  [
    'time-budget 9999h',
    action({ 'time-budget': '9999h' }),
    /input 'time-budget' must be at most 604800 s \(7 days\), got '9999h'/,
  ],
  [
    'alpha',
    action({ alpha: '1.5' }),
    /input 'alpha' must be a number between 0 and 0.5 \(exclusive, e.g. 0.05\), got '1.5'/,
  ],
  ['threshold', action({ threshold: '-2' }), /input 'threshold' must be a number between 0 and 100/],
  ['comment', action({ comment: 'yes' }), /input 'comment' must be true or false, got 'yes'/],
  ['pr-number', action({ 'pr-number': '#12' }), /input 'pr-number' must be a whole number >= 1, got '#12'/],
  ['comment-id', action({ 'comment-id': 'a b' }), /input 'comment-id' must be letters, digits/],
  [
    'no token',
    action({ 'github-token': '' }),
    /input 'github-token' is empty but 'comment' or 'commit-status' is on/,
  ],
  ['one bin dir', action({ 'base-bin-dir': bin }), /inputs 'base-bin-dir' and 'head-bin-dir' go together/],
  [
    'patches with bin dirs',
    action({ 'base-bin-dir': bin, 'head-bin-dir': bin, patches: 'a.patch' }),
    /input 'patches' builds PostgreSQL, but 'base-bin-dir' and 'head-bin-dir' give pre-built installs/,
  ],
  [
    'build-options with bin dirs',
    action({ 'base-bin-dir': bin, 'head-bin-dir': bin, 'build-options': '-Db_lto=true' }),
    /input 'build-options' builds PostgreSQL/,
  ],
  [
    'head-ref with a space',
    action({ 'head-ref': 'main; rm -rf /' }),
    /input 'head-ref' must be a branch, tag or commit sha/,
  ],
  [
    'publish-site outside mode nightly',
    action({ 'publish-site': 'docs', 'store-branch': 'pgperf-data' }),
    /input 'publish-site' \(docs\) publishes the history site of mode nightly to the data branch: set 'mode: nightly' and 'store-branch'/,
  ],
  [
    'publish-site escaping the branch',
    action({ mode: 'nightly', 'publish-site': '../www', 'store-branch': 'pgperf-data' }),
    /input 'publish-site' must be a directory inside the data branch such as docs .*got '\.\.\/www'/,
  ],
  [
    'publish-site inside the store',
    action({ mode: 'nightly', 'publish-site': 'store/site', 'store-branch': 'pgperf-data' }),
    /input 'publish-site' \(store\/site\) would put the site inside the store's directory 'store'/,
  ],
  [
    'unknown shipped workload',
    () => shippedWorkloadFile('select-onyl', path.join(root, 'workloads'), "input 'workloads'"),
    /input 'workloads': no shipped workload is named 'select-onyl' \(shipped: .*select-only.*tpcb-like/,
  ],
];

/**
 * A valid workload with a "billion laughs" key: nine levels of anchors, each nine aliases of the one
 * before, 9^9 (387 million) strings once resolved.
 */
function aliasBomb(): string {
  const levels = ['l0: &l0 [x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 9; i++)
    levels.push(
      `l${i}: &l${i} [${Array(9)
        .fill(`*l${i - 1}`)
        .join(', ')}]`,
    );
  return yaml(`description: |\n  laughs\nextra:\n${levels.map((l) => `  ${l}`).join('\n')}\n`);
}

/** A workload that is valid except for what a case changes. */
const yaml = (extra: string) => `name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1]\n${extra}`;
/** Loads this text as the workload file w.yml. */
const workload = (text: string) => () => parseWorkload(text, 'w.yml');
const workloadCases: Case[] = [
  // Validation in linear time, quoting the offending item (issue #40): 197 s and the whole list before.
  [
    'a matrix list of 50,000 values',
    workload(yaml(`matrix:\n  work_mem: [${Array.from({ length: 50_000 }, (_, i) => i).join(', ')}]\n`)),
    /^w\.yml:6:3: matrix: expected from 1 to 64 combinations .* these lists make 50000 = 50000, got \{"work_mem":\[0,1,2,[\d,]*… \(a mapping of 1 key\)$/,
  ],
  [
    'a key given twice among 50,000',
    workload(
      yaml(`settings:\n${Array.from({ length: 50_000 }, (_, i) => `  s${i}: 1`).join('\n')}\n  s3: 2\n`),
    ),
    /^w\.yml:50006:3: invalid YAML: the key "s3" is given twice in one mapping \(keys must be unique; the first is on line 9\)$/,
  ],
  [
    '5,000 bad setting names',
    workload(yaml(`settings:\n${Array.from({ length: 5000 }, (_, i) => `  Bad${i}: 1`).join('\n')}\n`)),
    /^w\.yml: 5000 problems \(the first 10\):\n.*settings\.Bad0: [\s\S]*\n {2}\.\.\. and 4990 more$/,
  ],
  [
    'reserved setting',
    workload(yaml('settings:\n  port: 5433\n')),
    /w\.yml:\d+:\d+: settings\.port: "port" is set by pgperf/,
  ],
  [
    'multi-line setting',
    workload(yaml('settings:\n  work_mem: "4MB\\nhba_file = /tmp/x"\n')),
    /settings\.work_mem: the value of "work_mem" must be a single line/,
  ],
  [
    'archive_command',
    workload(yaml("settings:\n  archive_command: 'curl x'\n")),
    /settings\.archive_command: "archive_command" is refused: a shell command the server runs/,
  ],
  [
    'clients empty',
    workload('name: w\ntool: pgbench\nbuiltin: select-only\nclients: []\n'),
    /clients: expected at least 1 entries/,
  ],
  [
    'clients as text',
    workload('name: w\ntool: pgbench\nbuiltin: select-only\nclients: many\n'),
    /clients: expected array, got "many"/,
  ],
  [
    'unknown tool',
    workload('name: w\ntool: hammerdb\nclients: [1]\n'),
    /tool: expected one of "pgbench", "sysbench"/,
  ],
  ['not a mapping', workload('- a\n- b\n'), /w\.yml: expected a mapping of workload fields/],
  ['invalid YAML', workload('name: [w\n'), /w\.yml:\d+:\d+: invalid YAML/],
  [
    'clients 1e9',
    workload('name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1e9]\n'),
    /^w\.yml:4:11: clients\[0\]: expected a whole number from 1 to 10000, got 1000000000$/,
  ],
  [
    'clients, 101 entries',
    workload(
      `name: w\ntool: pgbench\nbuiltin: select-only\nclients: [${Array.from({ length: 101 }, (_, i) => i + 1).join(', ')}]\n`,
    ),
    /w\.yml:4:10: clients: expected at most 100 entries/,
  ],
  [
    'scale 1e12',
    workload(yaml('scale: 1e12\n')),
    /^w\.yml:5:8: scale: expected a whole number from 1 to 100000, got 1000000000000$/,
  ],
  [
    'rounds 999999999',
    workload(yaml('rounds: 999999999\n')),
    /w\.yml:5:9: rounds: expected a whole number from 1 to 1000, got 999999999/,
  ],
  [
    'duration 1e9',
    workload(yaml('duration: 1e9\n')),
    /duration: expected a whole number from 1 to 86400, got 1000000000/,
  ],
  [
    'threads 100000',
    workload(yaml('threads: 100000\n')),
    /w\.yml:5:10: threads: expected a whole number from 1 to 10000, got 100000/,
  ],
  [
    'instruction transactions 1e9',
    workload(yaml('instructions: {long: 1e9}\n')),
    /instructions\.long: expected a whole number from 1 to 100000, got 1000000000/,
  ],
  [
    'sysbench rows past 1e10',
    workload(
      'name: w\ntool: sysbench\nscript: oltp_read_only\nclients: [1]\ntables: 1000\ntableSize: 1000000000\n',
    ),
    /tableSize: tables x tableSize \(1000 x 1000000000\) is more than 10000000000 rows/,
  ],
  [
    'an alias bomb',
    workload(aliasBomb()),
    /^w\.yml: invalid YAML: its aliases \(\*name\) expand to more than 100 copies of anchored nodes \(an alias bomb\?\)/,
  ],
  [
    'an alias with no anchor',
    workload(yaml('settings: *shared\n')),
    /^w\.yml: invalid YAML: Unresolved alias \(the anchor must be set before the alias\): shared$/,
  ],
  [
    'extraArgs outside the allow-list',
    workload(yaml('extraArgs: ["--file=/etc/passwd"]\n')),
    /extraArgs\[0\]/,
  ],
];

/** A /pgperf comment: what it asks for, or its one-line problem thrown (as the command job replies it). */
const command = (body: string) => () => {
  const parsed = parsePgperfCommand(body);
  if (parsed && !parsed.ok) throw new Error(parsed.problem);
  return parsed;
};
const commandCases: Case[] = [
  [
    'run rounds=999999999',
    command('/pgperf run rounds=999999999'),
    /^rounds=: '999999999' is out of range: a whole number from 1 to 1000$/,
  ],
  [
    'run clients=999999999',
    command('/pgperf run clients=1,999999999'),
    /^clients=: '999999999' is out of range: a whole number from 1 to 10000$/,
  ],
  [
    'run clients=, 101 of them',
    command(`/pgperf run clients=${Array.from({ length: 101 }, (_, i) => i + 1).join(',')}`),
    /^clients=: at most 100 client counts, got 101$/,
  ],
  [
    'rerun select-only@999999999',
    command('/pgperf rerun select-only@999999999'),
    /^'select-only@999999999': clients: '999999999' is out of range: a whole number from 1 to 10000$/,
  ],
];

const write = async (name: string, text: string) => {
  const file = path.join(dir, name);
  await writeFile(file, text);
  return file;
};
const ctx =
  (file: string | undefined, extra: NodeJS.ProcessEnv = {}) =>
  () =>
    readContext({ GITHUB_REPOSITORY: 'o/r', ...(file ? { GITHUB_EVENT_PATH: file } : {}), ...extra });
/** Reads the context of an event payload written to a file of this name first. */
const eventFile = (name: string, text: string) => async () => ctx(await write(name, text))();

const eventCases: Case[] = [
  [
    'event file missing',
    ctx('/nonexistent/event.json'),
    /GITHUB_EVENT_PATH \/nonexistent\/event\.json: cannot read the event payload \(ENOENT\)/,
  ],
  ['event file not JSON', eventFile('event.txt', 'not json {'), /event\.txt: the event payload is not JSON/],
  [
    'event payload an array',
    eventFile('event-array.json', '[1,2]'),
    /event-array\.json: the event payload must be a JSON object, got an array/,
  ],
  [
    'event payload null',
    eventFile('event-null.json', 'null'),
    /the event payload must be a JSON object, got null/,
  ],
  ['GITHUB_REPOSITORY missing', () => readContext({}), /GITHUB_REPOSITORY must be owner\/name, got ''/],
  [
    'GITHUB_REPOSITORY malformed',
    () => readContext({ GITHUB_REPOSITORY: 'a/b/c' }),
    /GITHUB_REPOSITORY must be owner\/name, got 'a\/b\/c'/,
  ],
];

/** The results fixture (a real run of PostgreSQL 15: arms base and head, 9 cells, 54 samples). */
const fixtureDoc = () =>
  JSON.parse(
    readFileSync(path.join(root, 'test/fixtures/results/pgperf-15-smoke-select-only.json'), 'utf8'),
  ) as RunResult;
/** The fixture changed by `edit`, written as files/NAME (a directory whose name the leftover check ignores). */
async function resultsFile(name: string, edit: (doc: RunResult) => void): Promise<string> {
  const doc = fixtureDoc();
  edit(doc);
  await mkdir(path.join(dir, 'files'), { recursive: true });
  return write(path.join('files', name), JSON.stringify(doc));
}
/** `pgperf compare` of the fixture changed by `edit`. */
const compareEdited = (name: string, edit: (doc: RunResult) => void) => async () =>
  cli(['compare', await resultsFile(name, edit)]);

// Results files a reader took without a word before every reader checked them as consolidate does
// (src/core/results/check-results.ts); compare reads a file as the Action's mode comment reads a fork's artifact.
const resultsCases: Case[] = [
  [
    'a sample twice',
    compareEdited('dup.json', (d) => d.samples.push(structuredClone(d.samples[0]!))),
    /files\/dup\.json: samples\[0\] and samples\[54\] are the same run \(select-only@2 arm head round 1 attempt 1\): duplicate samples would count one measurement twice/,
  ],
  [
    'a sample of an arm that is not declared',
    compareEdited('ghost-arm.json', (d) => (d.samples[3]!.arm = 'ghost')),
    /files\/ghost-arm\.json: samples\[3\] is of the arm 'ghost', which is not an arm of the run \(arms: base, head\)/,
  ],
  [
    'samples with an empty cell list',
    compareEdited('no-cells.json', (d) => (d.plan.cells = [])),
    /files\/no-cells\.json: samples\[0\] is of the cell select-only@2, which is not a cell of plan\.cells \(none: the plan is empty\)/,
  ],
  [
    'a TPS of 1e308',
    compareEdited('huge-tps.json', (d) => (d.samples[0]!.metrics.tps = 1e308)),
    /files\/huge-tps\.json: samples\[0\]\.metrics\.tps is 1e\+308: expected a rate of a run that processed transactions: above 0, at most 1e9\/s/,
  ],
  [
    'a results path that is a symlink to a file that is not JSON: named by position, never quoted',
    async () => {
      await mkdir(path.join(dir, 'files'), { recursive: true });
      const secret = await write(path.join('files', 'token.txt'), 'ghp_SECRETTOKEN0123456789 owner only\n');
      const link = path.join(dir, 'files', 'link.json');
      await symlink(secret, link);
      return cli(['compare', link]);
    },
    /^(?![\s\S]*SECRETTOKEN)[\s\S]*pgperf: \S*files\/link\.json is not valid JSON \(line 1, column 1: an unexpected character \(expected a value\)\); expected a results document from pgperf run\n/,
  ],
  [
    'a stored baseline whose arm recorded a refused setting (refused when read, before initdb)',
    async () => {
      const stored = await resultsFile('jit-stored.json', (d) => {
        d.arms[1]!.settingOverrides = { jit_provider: '../../../../tmp/x/evil' };
      });
      const store = path.join(dir, 'files', 'store');
      await cli(['store', 'import', stored, '--store', store]);
      return cli([
        'run',
        '--arm',
        `head=${bin}`,
        '--baseline',
        'stored',
        '--allow-fingerprint-mismatch',
        '--store',
        store,
        '--workload',
        wl(),
        '--out',
        path.join(dir, 'files', 'out'),
      ]);
    },
    /--baseline stored: the stored run \S+ \(measured 2026-11-23T13:23:03\.006Z\) in directory store \S+ records a setting pgperf refuses for its arm head: "jit_provider" takes .* not paths, got '\.\.\/\.\.\/\.\.\/\.\.\/tmp\/x\/evil'.* so nothing was measured/,
  ],
];

/**
 * A FIFO nobody writes under dir/fifos: a file that never delivers, as a hung network mount (issue #40
 * item 5). Opening it for reading waits for ever, so pgperf must refuse it before it opens it.
 */
async function fifo(...names: string[]): Promise<string> {
  const file = path.join(dir, 'fifos', ...names);
  await mkdir(path.dirname(file), { recursive: true });
  execFileSync('mkfifo', [file]);
  return file;
}
/** The attempt, or "still waiting after 5 s" (so a read that hangs fails the case instead of the suite). */
const within5s = (attempt: () => Promise<unknown>) => () =>
  Promise.race([
    attempt(),
    new Promise((_resolve, reject) =>
      setTimeout(() => reject(new Error('still waiting after 5 s')), 5000).unref(),
    ),
  ]);
/** A directory store whose only run file is a FIFO named like a run. */
async function storeWithFifoRun(name: string): Promise<string> {
  const store = path.join(dir, 'fifos', name);
  await mkdir(path.join(store, 'index'), { recursive: true });
  await fifo(name, 'runs', 'r1.json');
  return store;
}

const neverDeliveringCases: Case[] = [
  [
    'a results file given to compare that is a FIFO',
    within5s(async () => cli(['compare', await fifo('never-results.json')])),
    /^pgperf: results file \S+never-results\.json: is a FIFO, expected a regular file\n$/,
  ],
  [
    '--head-patch a FIFO',
    within5s(async () =>
      cli([
        'run',
        '--repo',
        path.join(dir, 'no-repo'),
        '--base',
        'master',
        '--head-patch',
        await fifo('never.patch'),
        '--workload',
        wl(),
      ]),
    ),
    /--head-patch \S+never\.patch: is a FIFO, expected a regular file/,
  ],
  [
    'build --patch a symlink to a FIFO (a mailbox saved as a pipe)',
    within5s(async () => {
      const link = path.join(dir, 'fifos', 'thread.mbox');
      await symlink(await fifo('mbox.fifo'), link);
      return cli(['build', '--repo', path.join(dir, 'no-repo'), '--ref', 'master', '--patch', link]);
    }),
    /--patch \S+thread\.mbox: is a FIFO, expected a regular file/,
  ],
  [
    '--store a FIFO',
    within5s(async () => cli(['store', 'list', '--store', await fifo('store.fifo')])),
    /--store: store directory \S+store\.fifo is not a directory \(it is a FIFO\); pass --store with a directory or a postgresql:\/\/ URL/,
  ],
  [
    'a store whose run file is a FIFO: store show',
    within5s(async () => cli(['store', 'show', 'r1', '--store', await storeWithFifoRun('store-show')])),
    /\S+store-show\/runs\/r1\.json: is a FIFO, expected a regular file \(run 'r1' of directory store /,
  ],
  [
    'a store whose run file is a FIFO: a run against the stored baseline (skipped, said, refused before any server)',
    within5s(async () =>
      cli([
        'run',
        ...storedBaseline,
        '--store',
        await storeWithFifoRun('store-run'),
        '--workload',
        wl(),
        '--out',
        path.join(dir, 'fifos', 'out'),
      ]),
    ),
    /skipping \S+store-run\/runs\/r1\.json: not a results document this pgperf reads: is a FIFO, expected a regular file[\s\S]*--baseline stored: no complete stored run of workload smoke/,
  ],
  [
    '--workload a FIFO',
    within5s(async () =>
      cli(['run', '--arm', `a=${bin}`, '--arm', `b=${bin}`, '--workload', await fifo('never.yml')]),
    ),
    /workload file \S+never\.yml: is a FIFO, expected a YAML workload file/,
  ],
  [
    'a workload script that is a FIFO',
    within5s(async () => {
      await fifo('wl', 'never.sql');
      const file = path.join(dir, 'fifos', 'wl', 'w.yml');
      await writeFile(file, 'name: w\ntool: pgbench\nscripts:\n  - file: never.sql\nclients: [1]\n');
      return cli(['run', '--arm', `a=${bin}`, '--arm', `b=${bin}`, '--workload', file]);
    }),
    /w\.yml: scripts\[0\]\.file: script "never\.sql" is a FIFO, expected a regular file \(a pgbench script\)/,
  ],
  [
    'GITHUB_EVENT_PATH a FIFO',
    within5s(async () => ctx(await fifo('event.json'))()),
    /^GITHUB_EVENT_PATH \S+event\.json: is a FIFO, expected a regular file \(the JSON file the runner writes\)$/,
  ],
];

describe.each([
  ['CLI flags', cliCases],
  ['Action inputs', actionCases],
  ['workload YAML', workloadCases],
  ['PR commands', commandCases],
  ['event payloads', eventCases],
  ['results files', resultsCases],
  ['files that never deliver', neverDeliveringCases],
])('bad input: %s', (_group, cases) => {
  it.each(cases)('%s', async (_name, attempt, message) => {
    const before = new Set(await leftovers());
    let outcome: unknown;
    try {
      outcome = await attempt();
    } catch (e) {
      outcome = e;
    }
    const text =
      outcome instanceof Error
        ? outcome.message
        : typeof outcome === 'object' && outcome !== null && 'stderr' in outcome
          ? (outcome as { stderr: string; code: number }).stderr
          : `accepted: ${JSON.stringify(outcome)}`;
    expect(text).toMatch(message);
    if (typeof outcome === 'object' && outcome !== null && 'code' in outcome) {
      expect((outcome as { code: number }).code).not.toBe(0);
      expect(text).not.toMatch(/internal error|at .*\.ts:\d+/);
    }
    const after = (await leftovers()).filter((f) => !before.has(f));
    expect(after).toEqual([]);
    expect((await readdir(dir)).filter((f) => /results|run-/.test(f))).toEqual([]);
  });
});

it('has at least 40 cases', () => {
  expect(
    cliCases.length +
      actionCases.length +
      workloadCases.length +
      commandCases.length +
      eventCases.length +
      resultsCases.length +
      neverDeliveringCases.length,
  ).toBeGreaterThanOrEqual(40);
});

it('ends quietly when its output pipe closes: `pgperf run --help | head -1` exits 0 with no stack', async () => {
  // The reader is gone before pgperf writes its help (node and tsx take far longer to start than this
  // takes to close), so every write to stdout fails with EPIPE.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/cli.ts'), 'run', '--help'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(stderr).toBe('');
  expect(code).toBe(0);
}, 30_000);
