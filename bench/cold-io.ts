/**
 * Does a setting that changes how PostgreSQL reads move the I/O steady metrics of a cold-start workload?
 * Real `pgperf run`s (from source) of the shipped workloads/select-only-cold.yml (scale 20 in 16 MB of shared
 * buffers, every measured run after a restart and, as root, a dropped page cache), one install as both
 * arms, the arms differing in one setting; prints each arm's median buffer reads, I/O reads (16+) and read
 * time per transaction, and TPS. Directions, not sizes: a 2-core VM's disk is as noisy as its CPUs.
 *
 * Run: npx tsx bench/cold-io.ts BINDIR NAME BASE_VALUE HEAD_VALUE [rounds]
 *   e.g. npx tsx bench/cold-io.ts /path/to/pg18/bin io_method sync worker 4
 *        npx tsx bench/cold-io.ts /usr/lib/postgresql/15/bin effective_io_concurrency 1 200 4
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunResult } from '../src/core/results/result-types.js';

const [binDir, name, baseValue, headValue, rounds = '4'] = process.argv.slice(2);
if (!binDir || !name || baseValue === undefined || headValue === undefined) {
  console.error('usage: npx tsx bench/cold-io.ts BINDIR NAME BASE_VALUE HEAD_VALUE [rounds]');
  process.exit(2);
}
const root = new URL('../', import.meta.url).pathname;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'pgperf-bench-cold-'));
chmodSync(tmp, 0o755); // the run-as user (pgperf runs PostgreSQL as one when root) enters it
try {
  const out = path.join(tmp, 'out');
  const ran = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(root, 'src/cli.ts'),
      'run',
      ...['--arm', `base=${binDir}`, '--arm', `head=${binDir}`],
      ...['--set', `base:${name}=${baseValue}`, '--set', `head:${name}=${headValue}`],
      ...['--workload', path.join(root, 'workloads/select-only-cold.yml'), '--rounds', rounds],
      ...['--seed', '7', '--no-store', '--out', out, '--tmp-dir', tmp, '--fail-on', 'never', '--force'],
    ],
    { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (ran.status !== 0) throw new Error(`pgperf run exited ${ran.status}`);
  const [run] = readdirSync(out);
  const result = JSON.parse(readFileSync(path.join(out, run!, 'results.json'), 'utf8')) as RunResult;
  const median = (xs: number[]) =>
    xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toPrecision(4) : '-';
  console.log(`\n${name}: base ${baseValue}, head ${headValue}; medians over ${rounds} rounds`);
  console.log('clients arm   TPS     buffer-reads/tx io-reads/tx read-time-ms/tx page-cache-dropped');
  for (const clients of [...new Set(result.samples.map((s) => s.clients))].sort((a, b) => a - b)) {
    for (const arm of ['base', 'head']) {
      const runs = result.samples.filter((s) => s.status === 'ok' && s.arm === arm && s.clients === clients);
      const m = (k: 'tps' | 'bufferReadsPerTx' | 'ioReadsPerTx' | 'readTimeMsPerTx') =>
        median(runs.flatMap((s) => (s.metrics[k] === undefined ? [] : [s.metrics[k]])));
      const dropped = runs.every((s) => s.steady?.cold?.pageCacheDropped === true);
      console.log(
        [clients, arm, m('tps'), m('bufferReadsPerTx'), m('ioReadsPerTx'), m('readTimeMsPerTx'), dropped]
          .map(String)
          .join('\t'),
      );
    }
  }
  for (const w of result.warnings) console.log(`warning: ${w}`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
