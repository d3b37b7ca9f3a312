/**
 * Bad input, round 4 (issue #40 item 9): more hand-written cases across CLI flags, workload files, Action
 * inputs, results files, stores, mailboxes and PR commands, each through the real parser or command, each
 * asserting the whole refusal: the exact text, which names the flag, input, file or field, the bad value and
 * what is expected. A refusal leaves nothing behind (no pgperf temp directory, no process naming the test's
 * directory). bad-input.test.ts holds the earlier cases (patterns), bad-input-sweep.test.ts the generated ones.
 */
import { mkdtempSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseInputs } from '../../src/adapters/action/inputs.js';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import { parsePgperfCommand } from '../../src/core/pgperf-command.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { parseResults } from '../../src/store/read-results.js';
import { readPatches, applyPatches } from '../../src/postgres/builds/patches.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { processesMentioning } from '../../testkit/postgres.js';
import { ACTION_INPUT_DEFAULTS } from '../helpers/action-inputs.js';
import { gitIn, TEST_GIT_ENV } from '../helpers/git.js';
import { runMain } from '../helpers/main-in-process.js';

const root = new URL('../../', import.meta.url).pathname;
/** Made when the file loads: the refusals below name paths under it. */
const dir = mkdtempSync(path.join(os.tmpdir(), 'bad-input-exact-'));
let savedTmpdir: string | undefined;

beforeAll(async () => {
  await mkdir(path.join(dir, 'tmp'));
  savedTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = path.join(dir, 'tmp');
});
afterAll(async () => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  await rm(dir, { recursive: true, force: true });
});

/** A case: its name, the attempt, and the whole refusal it must give. */
type Case = [name: string, attempt: () => Promise<unknown> | unknown, refusal: string];

/** pgperf temp dirs under the private TMPDIR and processes naming the test's directory. */
async function leftovers(): Promise<string[]> {
  const tmp = (await readdir(os.tmpdir())).filter((f) => /^pgperf-/.test(f));
  return [...tmp, ...processesMentioning(dir).map(String)];
}

/** `pgperf ARGS` in this process: what it wrote to stderr (stdout too), its exit code. */
async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  const ran = await runMain(args);
  return { code: ran.code, stderr: ran.stderr + ran.stdout };
}

const bin = '/usr/lib/postgresql/15/bin';
const smoke = () => path.join(root, 'workloads/smoke.yml');
/** `pgperf run` of the smoke workload with two arms of one install and these flags. */
const run =
  (...flags: string[]) =>
  () =>
    cli(['run', '--arm', `base=${bin}`, '--arm', `head=${bin}`, '--workload', smoke(), ...flags]);
/** `pgperf COMMAND ARGS`. */
const pgperf =
  (...args: string[]) =>
  () =>
    cli(args);

const cliCases: Case[] = [
  [
    'run --order abab',
    run('--order', 'abab'),
    `error: option '--order <order>' argument 'abab' is invalid. --order must be one of random, abba, got 'abab'`,
  ],
  [
    'run --clients 0',
    run('--clients', '0'),
    `error: option '--clients <list>' argument '0' is invalid. --clients must be client counts separated by commas (e.g. 1,4,64), each a whole number from 1 to 10000; got '0' (bad: '0')`,
  ],
  [
    'run --clients 1,,4',
    run('--clients', '1,,4'),
    `error: option '--clients <list>' argument '1,,4' is invalid. --clients must be client counts separated by commas (e.g. 1,4,64), each a whole number from 1 to 10000; got '1,,4' (bad: '')`,
  ],
  [
    'run --clients four',
    run('--clients', 'four'),
    `error: option '--clients <list>' argument 'four' is invalid. --clients must be client counts separated by commas (e.g. 1,4,64), each a whole number from 1 to 10000; got 'four' (bad: 'four')`,
  ],
  [
    'run --clients -4',
    run('--clients=-4'),
    `error: option '--clients <list>' argument '-4' is invalid. --clients must be client counts separated by commas (e.g. 1,4,64), each a whole number from 1 to 10000; got '-4' (bad: '-4')`,
  ],
  [
    'run --metric speed',
    run('--metric', 'speed'),
    `error: option '--metric <name>' argument 'speed' is invalid. --metric must be one of tps, qps, latency-avg, latencyStddevMs, latencyPctMs, p95, p99, wal-bytes, wal-records, wal-fpi, buffer-hits, buffer-reads, read-time, io-reads, backend-cpu, memory-peak, memory-median, temp-bytes, temp-files, instructions (also the keys latencyAvgMs, latencyP95Ms, latencyP99Ms, walBytesPerTx, walRecordsPerTx, walFpiPerTx, bufferHitsPerTx, bufferReadsPerTx, readTimeMsPerTx, ioReadsPerTx, backendCpuUsPerTx, backendMemoryPeakBytes, backendMemoryMedianBytes, tempBytesPerTx, tempFilesPerTx), got 'speed'`,
  ],
  [
    'run --alpha 0',
    run('--alpha', '0'),
    `error: option '--alpha <p>' argument '0' is invalid. --alpha must be a number between 0 and 0.5 (exclusive, e.g. 0.05), got '0'`,
  ],
  [
    'run --alpha 0.5',
    run('--alpha', '0.5'),
    `error: option '--alpha <p>' argument '0.5' is invalid. --alpha must be a number between 0 and 0.5 (exclusive, e.g. 0.05), got '0.5'`,
  ],
  [
    'run --alpha five',
    run('--alpha', 'five'),
    `error: option '--alpha <p>' argument 'five' is invalid. --alpha must be a number between 0 and 0.5 (exclusive, e.g. 0.05), got 'five'`,
  ],
  [
    'run --threshold 0',
    run('--threshold', '0'),
    `error: option '--threshold <pct>' argument '0' is invalid. --threshold must be a number between 0 and 100 (exclusive, e.g. 2), got '0'`,
  ],
  [
    'run --threshold 150',
    run('--threshold', '150'),
    `error: option '--threshold <pct>' argument '150' is invalid. --threshold must be a number between 0 and 100 (exclusive, e.g. 2), got '150'`,
  ],
  [
    'run --fail-on sometimes',
    run('--fail-on', 'sometimes'),
    `error: option '--fail-on <when>' argument 'sometimes' is invalid. --fail-on must be one of regression, inconclusive, never, got 'sometimes'`,
  ],
  [
    'run --seed abc',
    run('--seed', 'abc'),
    `error: option '--seed <n>' argument 'abc' is invalid. --seed must be a positive integer, got 'abc'`,
  ],
  [
    'run --duration 1.5',
    run('--duration', '1.5'),
    `error: option '--duration <seconds>' argument '1.5' is invalid. --duration must be a positive integer, got '1.5'`,
  ],
  [
    'run --max-rounds 0',
    run('--max-rounds', '0'),
    `error: option '--max-rounds <n>' argument '0' is invalid. --max-rounds must be a positive integer, got '0'`,
  ],
  [
    'run --time-budget soon',
    run('--time-budget', 'soon'),
    `error: option '--time-budget <duration>' argument 'soon' is invalid. --time-budget must be a positive duration: a number of seconds, or with the unit s, m, min or h (e.g. 45m, 1.5h, 900s), got 'soon'`,
  ],
  [
    'run --time-budget 0',
    run('--time-budget', '0'),
    `error: option '--time-budget <duration>' argument '0' is invalid. --time-budget must be a positive duration: a number of seconds, or with the unit s, m, min or h (e.g. 45m, 1.5h, 900s), got '0'`,
  ],
  [
    'run --schedule a,b',
    run('--schedule', 'a,b'),
    `error: option '--schedule <rounds>' argument 'a,b' is invalid. --schedule must be comma-separated, strictly increasing whole round counts >= 1 (e.g. 6,10,15,20,30), got 'a,b'`,
  ],
  [
    'run --schedule 10,5 (not increasing)',
    run('--schedule', '10,5'),
    `error: option '--schedule <rounds>' argument '10,5' is invalid. --schedule must be comma-separated, strictly increasing whole round counts >= 1 (e.g. 6,10,15,20,30), got '10,5'`,
  ],
  [
    'run --confirm-rounds -1',
    run('--confirm-rounds=-1'),
    `error: option '--confirm-rounds <n>' argument '-1' is invalid. --confirm-rounds must be a whole number >= 0, got '-1'`,
  ],
  [
    'run --spending linear',
    run('--spending', 'linear'),
    `error: option '--spending <name>' argument 'linear' is invalid. --spending must be one of obrien-fleming, pocock, got 'linear'`,
  ],
  [
    'run --pass-alpha 0.7',
    run('--pass-alpha', '0.7'),
    `error: option '--pass-alpha <a>' argument '0.7' is invalid. --pass-alpha must be a number between 0 and 0.5 (exclusive), got '0.7'`,
  ],
  [
    'run --steady-pass some',
    run('--steady-pass', 'some'),
    `error: option '--steady-pass <clients>' argument 'some' is invalid. --steady-pass must be a client count from 1 to 10000 (steady evidence may pass cells up to that many clients), all, or off; got 'some'`,
  ],
  [
    'run --on-drift panic',
    run('--on-drift', 'panic'),
    `error: option '--on-drift <action>' argument 'panic' is invalid. --on-drift must be one of refuse, inconclusive, got 'panic'`,
  ],
  [
    'run --baseline yesterday',
    run('--baseline', 'yesterday'),
    `pgperf: --baseline 'yesterday' is not a baseline; expected same-job, stored (the newest stored run) or stored:REF (a sha prefix or a ref name)`,
  ],
  [
    'run --instruction-counter magic',
    run('--instruction-counter', 'magic'),
    `error: option '--instruction-counter <counter>' argument 'magic' is invalid. --instruction-counter must be one of auto, cachegrind, perf, got 'magic'`,
  ],
  [
    'run --cpu-dma-latency fast',
    run('--cpu-dma-latency', 'fast'),
    `error: option '--cpu-dma-latency <us>' argument 'fast' is invalid. --cpu-dma-latency must be a whole number >= 0, got 'fast'`,
  ],
  [
    'run --run-as root',
    run('--run-as', 'root'),
    `error: option '--run-as <user>' argument 'root' is invalid. --run-as root: PostgreSQL refuses to run as root; expected an unprivileged user name`,
  ],
  [
    'run --run-as "Bad User"',
    run('--run-as', 'Bad User'),
    `error: option '--run-as <user>' argument 'Bad User' is invalid. --run-as 'Bad User': expected a user name (lower-case letters, digits, "_" and "-", e.g. pgperf)`,
  ],
  [
    'run --shard 0/2',
    run('--shard', '0/2'),
    `pgperf: --shard must be I/N with 1 <= I <= N (e.g. 2/3), got '0/2'`,
  ],
  [
    'run --shard 3/2',
    run('--shard', '3/2'),
    `pgperf: --shard must be I/N with 1 <= I <= N (e.g. 2/3), got '3/2'`,
  ],
  [
    'run --shard half',
    run('--shard', 'half'),
    `pgperf: --shard must be I/N with 1 <= I <= N (e.g. 2/3), got 'half'`,
  ],
  [
    'run --cf abc',
    pgperf('run', '--cf', 'abc', '--workload', 'smoke'),
    `pgperf: --cf must be a commitfest entry id (a positive integer, as in https://commitfest.postgresql.org/patch/4711/), got 'abc'`,
  ],
  [
    'run --arm =bindir (no label)',
    pgperf('run', '--arm', `=${bin}`, '--arm', `head=${bin}`, '--workload', 'smoke'),
    `error: option '--arm <label=bindir>' argument '=${bin}' is invalid. --arm must be LABEL=BINDIR (e.g. base=${bin}), got '=${bin}'`,
  ],
  [
    'run --arm base= (no bin dir)',
    pgperf('run', '--arm', 'base=', '--arm', `head=${bin}`, '--workload', 'smoke'),
    `error: option '--arm <label=bindir>' argument 'base=' is invalid. --arm must be LABEL=BINDIR (e.g. base=${bin}), got 'base='`,
  ],
  [
    'run --arm twice the same label',
    pgperf('run', '--arm', `a=${bin}`, '--arm', `a=${bin}`, '--workload', 'smoke'),
    `pgperf: --arm a: the label is given twice; labels must be unique`,
  ],
  [
    'run --arm a label with a space',
    pgperf('run', '--arm', `my arm=${bin}`, '--arm', `head=${bin}`, '--workload', 'smoke'),
    `pgperf: --arm my arm: a label is letters, digits, ".", "_" and "-" (e.g. base, head)`,
  ],
  [
    'run --set head:work_mem (no value)',
    run('--set', 'head:work_mem'),
    `error: option '--set <arm:name=value>' argument 'head:work_mem' is invalid. --set must be ARM:NAME=VALUE (e.g. head:synchronous_commit=off), got 'head:work_mem'`,
  ],
  [
    'run --set head:data_directory',
    run('--set', 'head:data_directory=/tmp/x'),
    `error: option '--set <arm:name=value>' argument 'head:data_directory=/tmp/x' is invalid. --set head:data_directory: "data_directory" is set by pgperf for every cluster and cannot be overridden: the cluster's own, made by initdb in pgperf's private temp directory; another is a directory the server reads and writes`,
  ],
  [
    'run --workload no-such-shipped',
    pgperf('run', '--arm', `a=${bin}`, '--arm', `b=${bin}`, '--workload', 'no-such-shipped'),
    `pgperf: --workload: 'no-such-shipped' is neither a file nor the name of a shipped workload (shipped: ecommerce-order, release-to-release, select-only, select-only-cold, select-only-pipelined, seqscan-cold, smoke, sysbench-oltp-point-select, sysbench-oltp-read-only, sysbench-oltp-read-write, sysbench-oltp-write-only, sysbench-smoke, tpcb-like, tpcb-like-cold); give one of those names or the path of a workload file (.yml)`,
  ],
  [
    'run --store ftp://host/x',
    run('--store', 'ftp://host/x'),
    `pgperf: store 'ftp://host/x' is not supported: expected a directory or a postgresql:// URL`,
  ],
  [
    'run --base with --arm',
    run('--base', 'master'),
    `pgperf: --arm and --base/--head both given: compare either installed bin dirs (--arm) or builds from source (--base/--head)`,
  ],
  [
    'compare --format xml',
    pgperf('compare', 'x.json', '--format', 'xml'),
    `error: option '--format <format>' argument 'xml' is invalid. --format must be one of text, markdown, json, mail, got 'xml'`,
  ],
  [
    'compare --alpha 2',
    pgperf('compare', 'x.json', '--alpha', '2'),
    `error: option '--alpha <p>' argument '2' is invalid. --alpha must be a number between 0 and 0.5 (exclusive, e.g. 0.05), got '2'`,
  ],
  [
    'compare a missing file',
    pgperf('compare', '/nonexistent/results.json'),
    `pgperf: results file /nonexistent/results.json: cannot read it (ENOENT)`,
  ],
  [
    'compare --fail-on sometimes',
    pgperf('compare', 'x.json', '--fail-on', 'sometimes'),
    `error: option '--fail-on <when>' argument 'sometimes' is invalid. --fail-on must be one of regression, inconclusive, never, got 'sometimes'`,
  ],
  [
    'plan --shards 0',
    pgperf('plan', '--workload', 'smoke', '--shards', '0'),
    `error: option '--shards <n>' argument '0' is invalid. --shards must be a positive integer, got '0'`,
  ],
  [
    'stat --threshold x',
    pgperf('stat', 'a', 'b', '--threshold', 'x'),
    `pgperf: --threshold must be a positive percentage such as 2, got 'x'`,
  ],
  [
    'stat a missing file',
    pgperf('stat', '/nonexistent/a.txt', '/nonexistent/b.txt'),
    `pgperf: base file /nonexistent/a.txt: cannot read it (ENOENT)`,
  ],
  [
    'changepoints --p 2',
    pgperf('changepoints', 'series.txt', '--p', '2'),
    `pgperf: --p must be a number between 0 and 1, got '2'`,
  ],
  [
    'changepoints --min-segment 0',
    pgperf('changepoints', 'series.txt', '--min-segment', '0'),
    `pgperf: --min-segment must be a whole number >= 2, got '0'`,
  ],
  [
    'nightly --expect-every often',
    pgperf('nightly', '--bin', bin, '--workload', 'smoke', '--expect-every', 'often'),
    `error: option '--expect-every <hours>' argument 'often' is invalid. --expect-every must be a positive integer, got 'often'`,
  ],
  [
    'nightly --raise-after 0',
    pgperf('nightly', '--bin', bin, '--workload', 'smoke', '--triage-digest', '--raise-after', '0'),
    `error: option '--raise-after <days>' argument '0' is invalid. --raise-after must be a positive integer, got '0'`,
  ],
  [
    'nightly --github-repo no-slash',
    pgperf('nightly', '--bin', bin, '--workload', 'smoke', '--github-repo', 'no-slash'),
    `pgperf: --github-repo must be OWNER/NAME (e.g. postgres/postgres), got 'no-slash'`,
  ],
  [
    'nightly --magnitude -5',
    pgperf('nightly', '--bin', bin, '--workload', 'smoke', '--magnitude=-5'),
    `pgperf: --magnitude must be a percentage >= 0 such as 2, got '-5'`,
  ],
  [
    'nightly without --bin or --ref',
    pgperf('nightly', '--workload', 'smoke'),
    `pgperf: nothing to measure: give --ref BRANCH (built from --repo) or --bin DIR`,
  ],
  [
    'bisect --tries 0',
    pgperf('bisect', '--good', 'a', '--bad', 'b', '--workload', 'smoke', '--tries', '0'),
    `error: option '--tries <n>' argument '0' is invalid. --tries must be a positive integer, got '0'`,
  ],
  [
    'bisect --clients 0',
    pgperf('bisect', '--good', 'a', '--bad', 'b', '--workload', 'smoke', '--clients', '0'),
    `error: option '--clients <n>' argument '0' is invalid. --clients must be a positive integer, got '0'`,
  ],
  [
    'bisect without --good',
    pgperf('bisect', '--bad', 'b', '--workload', 'smoke'),
    `error: required option '--good <ref>' not specified`,
  ],
  [
    'history --p 0',
    pgperf('history', '--results', 'x', '--out', 'site', '--p', '0'),
    `pgperf: --p must be a number between 0 and 1, got '0'`,
  ],
  [
    'build --ref with a space',
    pgperf('build', '--ref', 'master; rm -rf /'),
    `error: option '--ref <ref>' argument 'master; rm -rf /' is invalid. --ref must be a branch, tag or commit sha (letters, digits, ".", "_", "/", "-", "~", "^"), got 'master; rm -rf /'`,
  ],
  [
    'doctor --shared-buffers lots',
    pgperf('doctor', '--shared-buffers', 'lots'),
    `error: option '--shared-buffers <size>' argument 'lots' is invalid. --shared-buffers must be a size such as 8GB or 512MB, got 'lots'`,
  ],
  [
    'consolidate --format xml',
    pgperf('consolidate', 'a.json', '--format', 'xml'),
    `error: option '--format <format>' argument 'xml' is invalid. --format must be one of text, markdown, json, got 'xml'`,
  ],
];

/** parseInputs with the defaults of an Action step and these inputs. */
const action = (inputs: Record<string, string>) => () =>
  parseInputs((name) => ({ ...ACTION_INPUT_DEFAULTS, ...inputs })[name] ?? '');

const actionCases: Case[] = [
  ['adaptive maybe', action({ adaptive: 'maybe' }), `input 'adaptive' must be true or false, got 'maybe'`],
  ['force yes', action({ force: 'yes' }), `input 'force' must be true or false, got 'yes'`],
  ['explain 1', action({ explain: '1' }), `input 'explain' must be true or false, got '1'`],
  ['plans on', action({ plans: 'on' }), `input 'plans' must be auto, true or false, got 'on'`],
  [
    'instructions sometimes',
    action({ instructions: 'sometimes' }),
    `input 'instructions' must be auto, true or false, got 'sometimes'`,
  ],
  [
    'commit-status y',
    action({ 'commit-status': 'y' }),
    `input 'commit-status' must be true or false, got 'y'`,
  ],
  [
    'triage-digest maybe',
    action({ mode: 'nightly', 'triage-digest': 'maybe' }),
    `input 'triage-digest' must be true or false, got 'maybe'`,
  ],
  ['clients 0', action({ clients: '0' }), `input 'clients' must be a whole number >= 1, got '0'`],
  [
    'client-counts 1,x',
    action({ 'client-counts': '1,x' }),
    `input 'client-counts' must be distinct whole numbers >= 1, comma-separated (e.g. 1,64), got '1,x'`,
  ],
  [
    'client-counts empty item',
    action({ 'client-counts': '1,,2' }),
    `input 'client-counts' must be distinct whole numbers >= 1, comma-separated (e.g. 1,64), got '1,,2'`,
  ],
  ['duration 1.5', action({ duration: '1.5' }), `input 'duration' must be a whole number >= 1, got '1.5'`],
  ['max-rounds 0', action({ 'max-rounds': '0' }), `input 'max-rounds' must be a whole number >= 1, got '0'`],
  [
    'time-budget soon',
    action({ 'time-budget': 'soon' }),
    `input 'time-budget' must be a duration such as 45m, 1h or 900s, got 'soon'`,
  ],
  [
    'pass-alpha 0.9',
    action({ 'pass-alpha': '0.9' }),
    `input 'pass-alpha' must be a number between 0 and 0.5 (exclusive), got '0.9'`,
  ],
  [
    'confirm-rounds -1',
    action({ 'confirm-rounds': '-1' }),
    `input 'confirm-rounds' must be a whole number >= 0, got '-1'`,
  ],
  [
    'alpha 0',
    action({ alpha: '0' }),
    `input 'alpha' must be a number between 0 and 0.5 (exclusive, e.g. 0.05), got '0'`,
  ],
  [
    'threshold 100',
    action({ threshold: '100' }),
    `input 'threshold' must be a number between 0 and 100 (exclusive, e.g. 2), got '100'`,
  ],
  [
    'steady-pass some',
    action({ 'steady-pass': 'some' }),
    `input 'steady-pass' must be a client count from 1 to 10000 (steady evidence may pass cells up to that many clients), all, or off; got 'some'`,
  ],
  [
    'instruction-counter magic',
    action({ 'instruction-counter': 'magic' }),
    `input 'instruction-counter' must be one of auto, cachegrind, perf, got 'magic'`,
  ],
  [
    'cpu-dma-latency fast',
    action({ 'cpu-dma-latency': 'fast' }),
    `input 'cpu-dma-latency' must be a whole number >= 0, got 'fast'`,
  ],
  [
    'run-as root',
    action({ 'run-as': 'root' }),
    `input 'run-as' root: PostgreSQL refuses to run as root; expected an unprivileged user name`,
  ],
  [
    'run-as Bad User',
    action({ 'run-as': 'Bad User' }),
    `input 'run-as' 'Bad User': expected a user name (lower-case letters, digits, "_" and "-", e.g. pgperf)`,
  ],
  [
    'shard half',
    action({ shard: 'half' }),
    `input 'shard' must be I/N with 1 <= I <= N (e.g. 2/3), got 'half'`,
  ],
  ['shard 3/2', action({ shard: '3/2' }), `input 'shard' must be I/N with 1 <= I <= N (e.g. 2/3), got '3/2'`],
  ['seed -1', action({ seed: '-1' }), `input 'seed' must be a whole number >= 1, got '-1'`],
  [
    'wait-timeout forever',
    action({ 'wait-timeout': 'forever' }),
    `input 'wait-timeout' must be a duration such as 45m, 1h or 900s, got 'forever'`,
  ],
  [
    'baseline yesterday',
    action({ baseline: 'yesterday' }),
    `input 'baseline' 'yesterday' is not a baseline; expected same-job, stored (the newest stored run) or stored:REF (a sha prefix or a ref name)`,
  ],
  [
    'comment-on sometimes',
    action({ 'comment-on': 'sometimes' }),
    `input 'comment-on' must be one of always, change, got 'sometimes'`,
  ],
  [
    'expect-every often',
    action({ mode: 'nightly', 'expect-every': 'often' }),
    `input 'expect-every' must be a whole number >= 1, got 'often'`,
  ],
  [
    'raise-after 0',
    action({ mode: 'nightly', 'triage-digest': 'true', 'raise-after': '0' }),
    `input 'raise-after' must be a whole number >= 1, got '0'`,
  ],
  [
    'commitfest-entry abc',
    action({ 'commitfest-entry': 'abc' }),
    `input 'commitfest-entry' must be a commitfest entry id (a positive integer, as in https://commitfest.postgresql.org/patch/4711/), got 'abc'`,
  ],
  [
    'base-ref with a space',
    action({ 'base-ref': 'main; rm -rf /' }),
    `input 'base-ref' must be a branch, tag or commit sha (letters, digits, ".", "_", "/", "-", "~", "^"), got 'main; rm -rf /'`,
  ],
  [
    'canary-bin-dir outside nightly',
    action({ 'canary-bin-dir': bin }),
    `input 'canary-bin-dir' (${bin}) measures mode nightly's runner canary; mode benchmark does not read it: remove it`,
  ],
];

/** A workload that is valid except for what a case adds. */
const yaml = (extra: string) => `name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1]\n${extra}`;
/** Loads this text as the workload file w.yml. */
const workload = (text: string) => () => parseWorkload(text, 'w.yml');

const workloadCases: Case[] = [
  [
    'no name',
    workload('tool: pgbench\nbuiltin: select-only\nclients: [1]\n'),
    `w.yml:1:1: name: expected string, it is missing`,
  ],
  [
    'no tool',
    workload('name: w\nbuiltin: select-only\nclients: [1]\n'),
    `w.yml:1:1: tool: expected one of "pgbench", "sysbench", it is missing`,
  ],
  [
    'name with a slash',
    workload('name: a/b\ntool: pgbench\nbuiltin: select-only\nclients: [1]\n'),
    `w.yml:1:7: name: expected letters, digits, ".", "_" and "-", got "a/b"`,
  ],
  [
    'name of 300 characters',
    workload(`name: ${'n'.repeat(300)}\ntool: pgbench\nbuiltin: select-only\nclients: [1]\n`),
    `w.yml:1:7: name: expected at most 64 characters (the name becomes part of file names), got 300 characters ("nnnnnnnnnnnnnnnnnnnnnnnn"...)`,
  ],
  ['duration 0', workload(yaml('duration: 0\n')), `w.yml:5:11: duration: expected a number > 0, got 0`],
  [
    'duration as text',
    workload(yaml('duration: long\n')),
    `w.yml:5:11: duration: expected number, got "long"`,
  ],
  ['warmup -1', workload(yaml('warmup: -1\n')), `w.yml:5:9: warmup: expected a number >= 0, got -1`],
  [
    'mode extended-ish',
    workload(yaml('mode: fast\n')),
    `w.yml:5:1: unknown key "mode" (expected one of: name, description, tool, builtin, scripts, pipeline, queryMode, scale, clients, threads, init, extraArgs, duration, warmup, rounds, settings, matrix, vacuum, checkpoint, threshold, metrics, failOn, retries, cpus, instructions, plans, coldStart)`,
  ],
  [
    'builtin unknown',
    workload('name: w\ntool: pgbench\nbuiltin: select-all\nclients: [1]\n'),
    `w.yml:3:10: builtin: expected one of "tpcb-like", "simple-update", "select-only", got "select-all"`,
  ],
  [
    'builtin and scripts',
    workload(yaml('scripts:\n  - file: a.sql\n')),
    `w.yml:6:3: scripts: set exactly one of "builtin" (tpcb-like, simple-update, select-only) or "scripts", got [{"file":"a.sql"}]`,
  ],
  [
    'neither builtin nor scripts',
    workload('name: w\ntool: pgbench\nclients: [1]\n'),
    `w.yml:1:1: set exactly one of "builtin" (tpcb-like, simple-update, select-only) or "scripts"`,
  ],
  [
    'scripts empty',
    workload('name: w\ntool: pgbench\nscripts: []\nclients: [1]\n'),
    `w.yml:3:10: scripts: expected at least 1 entries, got []`,
  ],
  [
    'script weight 0',
    workload('name: w\ntool: pgbench\nscripts:\n  - file: a.sql\n    weight: 0\nclients: [1]\n'),
    `w.yml:5:13: scripts[0].weight: expected a number > 0, got 0`,
  ],
  [
    'script without file',
    workload('name: w\ntool: pgbench\nscripts:\n  - weight: 1\nclients: [1]\n'),
    `w.yml:4:5: scripts[0].file: expected string, it is missing`,
  ],
  [
    'settings a list',
    workload(yaml('settings: [work_mem]\n')),
    `w.yml:5:11: settings: expected record, got ["work_mem"]`,
  ],
  [
    'settings value a mapping',
    workload(yaml('settings:\n  work_mem: {a: 1}\n')),
    `w.yml:6:13: settings.work_mem: expected a setting value: a string, a number or true/false, got {"a":1}`,
  ],
  [
    'metrics unknown',
    workload(yaml('metrics: [speed]\n')),
    `w.yml:5:11: metrics[0]: expected one of "tps", "latency-avg", "p95", "p99", "wal-bytes", "wal-records", "wal-fpi", "buffer-hits", "buffer-reads", "read-time", "io-reads", "backend-cpu", "memory-peak", "memory-median", "temp-bytes", "temp-files", got "speed"`,
  ],
  [
    'metrics empty',
    workload(yaml('metrics: []\n')),
    `w.yml:5:10: metrics: expected at least 1 entries, got []`,
  ],
  ['threshold 0', workload(yaml('threshold: 0\n')), `w.yml:5:12: threshold: expected a number > 0, got 0`],
  [
    'threshold: 100',
    workload(yaml('threshold: 100\n')),
    'w.yml:5:12: threshold: expected a number < 100, got 100',
  ],
  ['retries -1', workload(yaml('retries: -1\n')), `w.yml:5:10: retries: expected a number >= 0, got -1`],
  [
    'maxIgnoredErrorsPct 200',
    workload('name: w\ntool: sysbench\nscript: oltp_read_only\nclients: [1]\nmaxIgnoredErrorsPct: 200\n'),
    `w.yml:5:22: maxIgnoredErrorsPct: expected a number <= 100, got 200`,
  ],
  [
    'coldStart yes',
    workload(yaml('coldStart: yes-please\n')),
    `w.yml:5:12: coldStart: expected boolean, got "yes-please"`,
  ],
  ['plans maybe', workload(yaml('plans: maybe\n')), `w.yml:5:8: plans: expected boolean, got "maybe"`],
  [
    'instructions with an unknown key',
    workload(yaml('instructions: {fast: true}\n')),
    `w.yml:5:16: instructions: unknown key "fast" (expected one of: short, long, warmup, repetitions, threshold)`,
  ],
  [
    'an unknown field',
    workload(yaml('speed: 11\n')),
    `w.yml:5:1: unknown key "speed" (expected one of: name, description, tool, builtin, scripts, pipeline, queryMode, scale, clients, threads, init, extraArgs, duration, warmup, rounds, settings, matrix, vacuum, checkpoint, threshold, metrics, failOn, retries, cpus, instructions, plans, coldStart)`,
  ],
  [
    'a sysbench field in a pgbench workload',
    workload(yaml('tables: 4\n')),
    `w.yml:5:1: unknown key "tables" (expected one of: name, description, tool, builtin, scripts, pipeline, queryMode, scale, clients, threads, init, extraArgs, duration, warmup, rounds, settings, matrix, vacuum, checkpoint, threshold, metrics, failOn, retries, cpus, instructions, plans, coldStart); tables is a sysbench field`,
  ],
  [
    'description a number',
    workload(yaml('description: 42\n')),
    `w.yml:5:14: description: expected string, got 42`,
  ],
  ['scale 0', workload(yaml('scale: 0\n')), `w.yml:5:8: scale: expected a number > 0, got 0`],
  ['threads 0', workload(yaml('threads: 0\n')), `w.yml:5:10: threads: expected a number > 0, got 0`],
  [
    'pipeline with tpcb-like',
    workload('name: w\ntool: pgbench\nbuiltin: tpcb-like\nclients: [1]\npipeline: true\n'),
    `w.yml:5:11: pipeline: expected number, got true`,
  ],
  [
    'sysbench script unknown',
    workload('name: w\ntool: sysbench\nscript: oltp_everything\nclients: [1]\n'),
    `w.yml:3:9: script: expected one of "oltp_read_only", "oltp_write_only", "oltp_read_write", "oltp_point_select", "oltp_update_index", "oltp_update_non_index", "oltp_insert", got "oltp_everything"`,
  ],
  [
    'sysbench tables 0',
    workload('name: w\ntool: sysbench\nscript: oltp_read_only\nclients: [1]\ntables: 0\n'),
    `w.yml:5:9: tables: expected a number > 0, got 0`,
  ],
  [
    'matrix of a reserved setting',
    workload(yaml('matrix:\n  port: [5432, 5433]\n')),
    `w.yml:6:9: matrix.port: "port" is set by pgperf for every cluster and cannot be overridden: pgperf picks a free port for each cluster, got [5432,5433]`,
  ],
  [
    'matrix with an empty list',
    workload(yaml('matrix:\n  work_mem: []\n')),
    `w.yml:6:13: matrix.work_mem: expected a non-empty list of values, e.g. [sync, worker], got []`,
  ],
  [
    'matrix not a mapping',
    workload(yaml('matrix: [work_mem]\n')),
    `w.yml:5:9: matrix: expected record, got ["work_mem"]`,
  ],
  [
    'clients with a duplicate',
    workload('name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1, 1]\n'),
    `w.yml:4:10: clients: client counts must not repeat, got [1,1]`,
  ],
  [
    'clients: [0]',
    workload('name: w\ntool: pgbench\nbuiltin: select-only\nclients: [0]\n'),
    'w.yml:4:11: clients[0]: expected a number > 0, got 0',
  ],
  [
    'clients 1.5',
    workload('name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1.5]\n'),
    `w.yml:4:11: clients[0]: expected int, got 1.5`,
  ],
  [
    'a tab-indented document',
    workload('name: w\ntool: pgbench\n\tbuiltin: select-only\n'),
    `w.yml:3:1: invalid YAML: Tabs are not allowed as indentation`,
  ],
  [
    'two documents',
    workload(`${yaml('# one\n')}---\n${yaml('# two\n')}`),
    `w.yml:6:1: invalid YAML: a second document starts here (after "---"); a workload file holds one workload, one document`,
  ],
  [
    'cpus nonsense',
    workload(yaml('cpus: lots\n')),
    `w.yml:5:7: cpus: expected "auto" or {server: "0-3", client: "4-7"} (kernel CPU lists), got "lots"`,
  ],
];

/** The results fixture (a real run of PostgreSQL 15: arms base and head, 9 cells, 54 samples). */
const fixture = () =>
  readFile(path.join(root, 'test/fixtures/results/pgperf-15-smoke-select-only.json'), 'utf8').then(
    (t) => JSON.parse(t) as RunResult,
  );
/** The fixture changed by `edit`, read as results.json. */
const edited = (edit: (doc: RunResult & Record<string, unknown>) => void) => async () => {
  const doc = (await fixture()) as RunResult & Record<string, unknown>;
  doc.analysis ??= { alpha: 0.05, thresholdPct: 2, metric: 'tps' };
  edit(doc);
  return parseResults(JSON.stringify(doc), 'results.json');
};

const resultsCases: Case[] = [
  [
    'schemaVersion 2',
    edited((d) => ((d as Record<string, unknown>).schemaVersion = 2)),
    `results.json: schemaVersion is 2; this pgperf reads schemaVersion 1 (the file was written by a newer pgperf: upgrade pgperf to read it)`,
  ],
  [
    'status unknown',
    edited((d) => ((d as Record<string, unknown>).status = 'done')),
    `results.json: status is "done": Invalid option: expected one of "running"|"complete"|"interrupted"|"failed"`,
  ],
  [
    'no arms',
    edited((d) => (d.arms = [])),
    `results.json: arms is []: Too small: expected array to have >=1 items`,
  ],
  [
    'analysis.alpha 0.9',
    edited((d) => (d.analysis!.alpha = 0.9)),
    `results.json: analysis.alpha is 0.9: Too big: expected number to be <0.5`,
  ],
  [
    'analysis.thresholdPct 0',
    edited((d) => (d.analysis!.thresholdPct = 0)),
    `results.json: analysis.thresholdPct is 0: Too small: expected number to be >0`,
  ],
  [
    'analysis.metric unknown',
    edited((d) => ((d.analysis as unknown as Record<string, unknown>).metric = 'speed')),
    `results.json: analysis.metric is "speed": Invalid option: expected one of "tps"|"qps"|"latencyAvgMs"|"latencyStddevMs"|"latencyPctMs"|"latencyP95Ms"|"latencyP99Ms"|"walBytesPerTx"|"walRecordsPerTx"|"walFpiPerTx"|"bufferHitsPerTx"|"bufferReadsPerTx"|"readTimeMsPerTx"|"ioReadsPerTx"|"backendCpuUsPerTx"|"backendMemoryPeakBytes"|"backendMemoryMedianBytes"|"tempBytesPerTx"|"tempFilesPerTx"|"instructions"`,
  ],
  [
    'a noise floor of 2000%',
    edited(
      (d) =>
        (d.analysis!.noiseFloors = [
          {
            workload: 'select-only',
            clients: 1,
            metric: 'tps',
            floorPct: 2000,
            runs: 14,
            from: 'a',
            to: 'b',
          },
        ]),
    ),
    `results.json: analysis.noiseFloors[0].floorPct is 2000: expected a percentage of at most 1000`,
  ],
  [
    'a noise floor of no runs',
    edited(
      (d) =>
        (d.analysis!.noiseFloors = [
          { workload: 'select-only', clients: 1, metric: 'tps', floorPct: 3, runs: 0, from: 'a', to: 'b' },
        ]),
    ),
    `results.json: analysis.noiseFloors[0].runs is 0: Too small: expected number to be >0`,
  ],
  [
    'a noise floor with a malformed definition hash',
    edited(
      (d) =>
        (d.analysis!.noiseFloors = [
          {
            workload: 'select-only',
            clients: 1,
            metric: 'tps',
            floorPct: 3,
            runs: 14,
            from: 'a',
            to: 'b',
            definition: 'xyz',
          },
        ]),
    ),
    `results.json: analysis.noiseFloors[0].definition is "xyz": expected a workload definition hash (16 hex digits)`,
  ],
  [
    'a sample of 0 clients',
    edited((d) => (d.samples[2]!.clients = 0)),
    `results.json: samples[2].clients is 0: Too small: expected number to be >0`,
  ],
  [
    'a sample of round -1',
    edited((d) => (d.samples[2]!.round = -1)),
    `results.json: samples[2].round is -1: Too small: expected number to be >0`,
  ],
  [
    'a negative latency',
    edited((d) => (d.samples[2]!.metrics.latencyAvgMs = -3)),
    `results.json: samples[2].metrics.latencyAvgMs is -3: expected a latency of a run: above 0, at most 1e8 ms (longer than the longest run)`,
  ],
  [
    'a sample status unknown',
    edited((d) => ((d.samples[2] as unknown as Record<string, unknown>).status = 'great')),
    `results.json: samples[2].status is "great": Invalid option: expected one of "ok"|"failed"`,
  ],
  [
    'a plan cell of 0 clients',
    edited((d) => (d.plan.cells[0]!.clients = 0)),
    `results.json: plan.cells[0].clients is 0: Too small: expected number to be >0`,
  ],
  [
    'no environment',
    edited((d) => delete (d as Record<string, unknown>).environment),
    `results.json: environment is missing: Invalid input: expected object, received undefined`,
  ],
  [
    'workloads a list',
    edited((d) => ((d as Record<string, unknown>).workloads = [])),
    `results.json: workloads is []: Invalid input: expected record, received array`,
  ],
  [
    'runId a number',
    edited((d) => ((d as Record<string, unknown>).runId = 7)),
    `results.json: runId is 7: Invalid input: expected string, received number`,
  ],
  [
    'truncated JSON',
    () => parseResults('{"schemaVersion": 1, "status": "comp', 'results.json'),
    `results.json is not valid JSON (line 1, column 37: the text ends where the end of a string (") was expected); expected a results document from pgperf run`,
  ],
  [
    'a JSON array',
    () => parseResults('[]', 'results.json'),
    `results.json: expected a JSON object (a results document from pgperf run)`,
  ],
  [
    'an empty file',
    () => parseResults('', 'results.json'),
    `results.json is not valid JSON (line 1, column 1: the text ends where a value was expected); expected a results document from pgperf run`,
  ],
];

/** A directory store under the test's directory. */
const storeDir = (name: string) => path.join(dir, 'stores', name);
/** A directory store holding one file `runs/NAME` with this text. */
async function storeWith(name: string, file: string, text: string): Promise<string> {
  const store = storeDir(name);
  await mkdir(path.join(store, 'runs'), { recursive: true });
  await mkdir(path.join(store, 'index'), { recursive: true });
  await writeFile(path.join(store, 'runs', file), text);
  return store;
}

const storeCases: Case[] = [
  [
    'store list --store a file',
    async () => {
      await mkdir(path.join(dir, 'stores'), { recursive: true });
      await writeFile(storeDir('a-file'), 'x');
      return cli(['store', 'list', '--store', storeDir('a-file')]);
    },
    `pgperf: --store: store directory ${dir}/stores/a-file is not a directory (it is a regular file); pass --store with a directory or a postgresql:// URL`,
  ],
  [
    'store list --store ftp://',
    pgperf('store', 'list', '--store', 'ftp://host/x'),
    `pgperf: store 'ftp://host/x' is not supported: expected a directory or a postgresql:// URL`,
  ],
  [
    'store show of an unknown id',
    async () => cli(['store', 'show', 'no-such-run', '--store', await storeWith('empty', 'keep.txt', '')]),
    `pgperf: no run 'no-such-run' in directory store ${dir}/stores/empty; "pgperf store list" shows the stored runs`,
  ],
  [
    'store show of an id with a slash',
    async () =>
      cli(['store', 'show', '../../etc/passwd', '--store', await storeWith('slash', 'keep.txt', '')]),
    `pgperf: run id '../../etc/passwd' is not valid; expected an id as printed by "pgperf store list" (letters, digits, ".", "_", "-")`,
  ],
  [
    'store show of a run file that is not JSON',
    async () => cli(['store', 'show', 'r1', '--store', await storeWith('not-json', 'r1.json', 'not json')]),
    `pgperf: ${dir}/stores/not-json/runs/r1.json is corrupt (not valid JSON: line 1, column 1: an unexpected character (expected a value)); restore it or delete it and its index entry`,
  ],
  [
    'store show of a run file that is not a results document',
    async () => cli(['store', 'show', 'r1', '--store', await storeWith('not-doc', 'r1.json', '{"a": 1}')]),
    `pgperf: ${dir}/stores/not-doc/runs/r1.json: schemaVersion is undefined; this pgperf reads schemaVersion 1`,
  ],
  [
    'store import of a missing file',
    async () => cli(['store', 'import', '/nonexistent/results.json', '--store', storeDir('import-missing')]),
    `pgperf: results file /nonexistent/results.json: cannot read it (ENOENT)`,
  ],
  [
    'store import of a file that is not JSON',
    async () => {
      await mkdir(path.join(dir, 'stores'), { recursive: true });
      await writeFile(storeDir('bad.json'), 'nope');
      return cli(['store', 'import', storeDir('bad.json'), '--store', storeDir('import-bad')]);
    },
    `pgperf: ${dir}/stores/bad.json is not valid JSON (line 1, column 1: an unexpected character (expected a value)); expected a results document from pgperf run`,
  ],
  [
    'store import of a directory',
    async () => {
      await mkdir(storeDir('a-dir'), { recursive: true });
      return cli(['store', 'import', storeDir('a-dir'), '--store', storeDir('import-dir')]);
    },
    `pgperf: results file ${dir}/stores/a-dir: is a directory, expected a regular file`,
  ],
  [
    'store export --store missing',
    pgperf('store', 'export', 'r1', '--store', '/nonexistent/store'),
    `pgperf: no run 'r1' in directory store /nonexistent/store; "pgperf store list" shows the stored runs`,
  ],
  [
    'history --store a missing directory',
    pgperf('history', '--store', '/nonexistent/store', '--out', '/nonexistent/site'),
    `pgperf: the 0 runs in directory store /nonexistent/store hold no usable measurements (complete runs with TPS or latency samples)`,
  ],
  [
    'plan --store ftp://',
    pgperf('plan', '--workload', 'smoke', '--store', 'ftp://host/x'),
    `pgperf: store 'ftp://host/x' is not supported: expected a directory or a postgresql:// URL`,
  ],
];

/** A file under dir/mail with this text. */
async function mailFile(name: string, text: string): Promise<string> {
  const file = path.join(dir, 'mail', name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
  return file;
}
/** A message of a mailbox: its From line, headers and body. */
const message = (subject: string, body: string) =>
  `From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\nFrom: A <a@example.org>\nSubject: ${subject}\nDate: Mon, 1 Jan 2026 00:00:00 +0000\n\n${body}\n`;
/** A git repository with one commit of a.txt, in which patches are applied as a build applies them. */
async function repo(name: string): Promise<string> {
  const at = path.join(dir, 'mail', name);
  await mkdir(at, { recursive: true });
  const git = gitIn(at);
  git('init', '-q');
  await writeFile(path.join(at, 'a.txt'), 'one\ntwo\n');
  git('add', '.');
  git('commit', '-qm', 'first');
  return at;
}
/** applyPatches of these files (read as a build reads them) in a new repository. */
const applied = (name: string, files: () => Promise<string[]>) => async () => {
  const at = await repo(name);
  const patches = await readPatches(await files(), '--head-patch');
  return applyPatches(at, patches, 'build head', {
    runner: nodeProcessRunner,
    logger: memoryLogger(),
    env: TEST_GIT_ENV,
  });
};
const diff = '--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n';
const stale = '--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-zwei\n+drei\n';

const mailboxCases: Case[] = [
  [
    'a patch file that is missing',
    () => readPatches([path.join(dir, 'mail', 'none.patch')], '--head-patch'),
    `--head-patch ${dir}/mail/none.patch: cannot read it (ENOENT)`,
  ],
  [
    'a patch file that is a directory',
    async () => {
      await mkdir(path.join(dir, 'mail', 'dir.patch'), { recursive: true });
      return readPatches([path.join(dir, 'mail', 'dir.patch')], '--head-patch');
    },
    `--head-patch ${dir}/mail/dir.patch: is a directory, expected a regular file`,
  ],
  [
    'a patch that is a symlink to a directory',
    async () => {
      await mkdir(path.join(dir, 'mail', 'target'), { recursive: true });
      await symlink(path.join(dir, 'mail', 'target'), path.join(dir, 'mail', 'link.patch'));
      return readPatches([path.join(dir, 'mail', 'link.patch')], '--base-patch');
    },
    `--base-patch ${dir}/mail/link.patch: is a directory, expected a regular file`,
  ],
  [
    'a mailbox of 5001 messages',
    async () =>
      readPatches(
        [
          await mailFile(
            'huge.mbox',
            Array.from({ length: 5001 }, (_, i) => message(`re ${i}`, 'reply')).join('\n'),
          ),
        ],
        '--patch',
      ),
    `--patch ${dir}/mail/huge.mbox: a mailbox of 5001 messages, more than 5000: git am skips each message without a diff (a cover letter, a reply) one at a time. Save only the messages with the patches, or the patch attachments`,
  ],
  [
    'a mailbox of a cover letter and replies only',
    applied('cover', async () => [
      await mailFile(
        'cover.mbox',
        [message('[PATCH 0/1] cover', 'words'), message('Re: [PATCH 0/1] cover', 'a reply')].join('\n'),
      ),
    ]),
    `build head: ${dir}/mail/cover.mbox holds no patch: its 2 message(s) have no diff (a cover letter, replies). Save the messages with the patches, or the patch attachments`,
  ],
  [
    'a mailbox whose patch does not apply',
    applied('stale-mail', async () => [
      await mailFile('stale.mbox', message('[PATCH] change', `---\n${stale}`)),
    ]),
    `build head: patch ${dir}/mail/stale.mbox does not apply (failing: a.txt). git am said:\nerror: patch failed: a.txt:1\nerror: a.txt: patch does not apply\nhint: Use 'git am --show-current-patch=diff' to see the failed patch\nRebase the patch onto this ref, or build the ref it was made for.`,
  ],
  [
    'a plain patch that does not apply',
    applied('stale-plain', async () => [await mailFile('stale.patch', stale)]),
    `build head: patch ${dir}/mail/stale.patch does not apply (failing: a.txt). git apply said:\nerror: patch failed: a.txt:1\nerror: a.txt: patch does not apply\nRebase the patch onto this ref, or build the ref it was made for.`,
  ],
  [
    'a plain patch that is not a diff',
    applied('not-diff', async () => [await mailFile('prose.patch', 'just some prose\n')]),
    `build head: patch ${dir}/mail/prose.patch does not apply. git apply said:\nerror: No valid patches in input (allow with "--allow-empty")\nRebase the patch onto this ref, or build the ref it was made for.`,
  ],
  [
    'a second patch that no longer applies after the first',
    applied('twice', async () => [await mailFile('first.patch', diff), await mailFile('again.patch', diff)]),
    `build head: patch ${dir}/mail/again.patch does not apply (failing: a.txt). git apply said:\nerror: patch failed: a.txt:1\nerror: a.txt: patch does not apply\nRebase the patch onto this ref, or build the ref it was made for.`,
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
    'an unknown verb',
    command('/pgperf frobnicate'),
    `unknown command 'frobnicate': expected run, rerun, accept, attribute or help`,
  ],
  ['run rounds=0', command('/pgperf run rounds=0'), `rounds=: '0' is not a whole number >= 1`],
  ['run rounds=abc', command('/pgperf run rounds=abc'), `rounds=: 'abc' is not a whole number >= 1`],
  ['run rounds= (empty)', command('/pgperf run rounds='), `rounds=: '' is not a whole number >= 1`],
  ['run clients=0', command('/pgperf run clients=0'), `clients=: '0' is not a whole number >= 1`],
  ['run clients=a', command('/pgperf run clients=a'), `clients=: 'a' is not a whole number >= 1`],
  ['run clients=1,,2', command('/pgperf run clients=1,,2'), `clients=: '' is not a whole number >= 1`],
  [
    'run an unknown option',
    command('/pgperf run duration=5'),
    `unknown option 'duration=5' of 'run': expected workloads=, clients=, rounds=`,
  ],
  ['run an option twice', command('/pgperf run rounds=5 rounds=6'), `option 'rounds' given twice`],
  [
    'run a word without =',
    command('/pgperf run fast'),
    `unknown option 'fast' of 'run': expected workloads=, clients=, rounds=`,
  ],
  [
    'run workloads= with a bad name',
    command('/pgperf run workloads=../x'),
    `workloads=: '../x' is no workload name (letters, digits, ".", "_", "-")`,
  ],
  ['rerun without a cell', command('/pgperf rerun'), `'rerun' takes one <workload>@<clients>, got 0 words`],
  [
    'rerun without clients',
    command('/pgperf rerun select-only'),
    `'select-only' needs @<clients>, e.g. select-only@64`,
  ],
  [
    'rerun clients=abc',
    command('/pgperf rerun select-only@abc'),
    `'select-only@abc': clients: 'abc' is not a whole number >= 1`,
  ],
  [
    'rerun two cells',
    command('/pgperf rerun select-only@1 tpcb-like@1'),
    `'rerun' takes one <workload>@<clients>, got 2 words`,
  ],
  [
    'accept without a reason',
    command('/pgperf accept select-only@1'),
    `'accept select-only@1' needs a reason: say why the regression is acceptable`,
  ],
  [
    'accept without anything',
    command('/pgperf accept'),
    `'accept' needs <workload>[@<clients>] and a reason`,
  ],
  [
    'accept a reason of 301 characters',
    command(`/pgperf accept select-only ${'r'.repeat(301)}`),
    `the reason is longer than 300 characters`,
  ],
  ['help with arguments', command('/pgperf help me'), `'help' takes nothing, got 'me'`],
  [
    'a command of 1001 characters',
    command(`/pgperf run ${'x'.repeat(1000)}`),
    `the command is longer than 1000 characters`,
  ],
  [
    'a command with a bidirectional character',
    command('/pgperf run rounds=5\u202e'),
    `the command contains control or bidirectional characters`,
  ],
  ['no verb', command('/pgperf'), `no command after /pgperf`],
];

const groups: Array<[string, Case[]]> = [
  ['CLI flags', cliCases],
  ['Action inputs', actionCases],
  ['workload files', workloadCases],
  ['results files', resultsCases],
  ['stores', storeCases],
  ['mailboxes', mailboxCases],
  ['PR commands', commandCases],
];

/**
 * What an attempt said: an error's message; the CLI's refusal (its output from the first line that starts
 * with "pgperf: " or commander's "error: ", so a log line before it, such as where the results would go, is
 * not part of it); or what it accepted.
 */
function said(outcome: unknown): string {
  if (outcome instanceof Error) return outcome.message;
  if (typeof outcome === 'object' && outcome !== null && 'stderr' in outcome) {
    const out = (outcome as { stderr: string }).stderr.trim();
    const at = out.search(/^(pgperf|error): /m);
    return at < 0 ? out : out.slice(at);
  }
  return `accepted: ${JSON.stringify(outcome)}`;
}

describe.each(groups)('bad input (exact refusals): %s', (_group, cases) => {
  it.each(cases)('%s', async (_name, attempt, refusal) => {
    const before = new Set(await leftovers());
    let outcome: unknown;
    try {
      outcome = await attempt();
    } catch (e) {
      outcome = e;
    }
    if (process.env.PROBE) console.log(`PROBE ${JSON.stringify([_name, said(outcome)])}`);
    expect(said(outcome)).toBe(refusal);
    if (typeof outcome === 'object' && outcome !== null && 'code' in outcome) {
      expect((outcome as { code: number }).code).not.toBe(0);
    }
    expect((await leftovers()).filter((f) => !before.has(f))).toEqual([]);
  });
});

it('adds at least 140 cases, in every group', () => {
  expect(groups.filter(([, cases]) => cases.length === 0).map(([name]) => name)).toEqual([]);
  expect(groups.reduce((n, [, cases]) => n + cases.length, 0)).toBeGreaterThanOrEqual(140);
});
