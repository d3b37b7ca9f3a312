/**
 * Issue #44's "Done when" on real PostgreSQL 18 builds: a head whose every Bind allocates and touches 4 MB
 * (test/helpers/bind-memory-head.ts: one rebuilt file, about a minute with ccache, then cached), compared with
 * base by the CLI with default flags (select-only prepared, 2 clients, 2 s runs), is reported as a
 * per-backend memory increase of at least 2 MB in the terminal and in results.json, although its instruction
 * counts already decided the regression (its 3 memory rounds still run). An A/A pair of one install (4 rounds) reports
 * no memory change. What the sampler sees: glibc serves the first 4 MB by mmap and frees it at once, which
 * raises its mmap threshold above 4 MB; every later one comes from the heap and stays there (the heap's top
 * is below the trim threshold, twice the mmap threshold), so every reading holds it. The largest backend's
 * memory contexts are recorded in every run; the 4 MB shows outside them.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { median } from 'simple-statistics';
import type { RunResult } from '../../src/core/results/result-types.js';
import type { MemoryContextsRecord } from '../../src/core/results/memory-contexts.js';
import { memoryLookup } from '../../src/core/compare/evidence/memory-evidence.js';
import { bindMemoryInstalls, BIND_BYTES } from '../helpers/bind-memory-head.js';
import { PG18_BUILD_TIMEOUT_MS } from '../helpers/pg18-install.js';
import { isolatedEnv, onlyResultsFile, runCli } from '../helpers/cli.js';
import { useTestClusters } from '../helpers/clusters.js';

const clusters = useTestClusters('pgperf-it-memory-head-');
const tmp = clusters.dir;
let installs: { baseBinDir: string; headBinDir: string };

beforeAll(async () => {
  installs = await bindMemoryInstalls();
}, PG18_BUILD_TIMEOUT_MS);

const MB2 = 2 * 1024 * 1024;

describe('a head that allocates 4 MB in every Bind (PostgreSQL 18, default flags)', () => {
  it('is reported as a per-backend memory increase of at least 2 MB, in the terminal and results.json', async () => {
    const out = path.join(tmp(), 'out');
    const ran = await runCli(
      [
        'run',
        ...['--arm', `base=${installs.baseBinDir}`, '--arm', `head=${installs.headBinDir}`],
        ...['--workload', 'select-only', '--clients', '2', '--duration', '2', '--seed', '7'],
        ...['--no-store', '--out', out, '--tmp-dir', tmp()],
      ],
      { source: true, cwd: tmp(), env: isolatedEnv(tmp()), killAfterMs: 580_000 },
    );
    expect(ran.code, ran.stderr.slice(-3000)).toBe(1);
    // The counts decided, and the memory rounds ran anyway.
    expect(ran.stderr).toContain('select-only: the instruction counts decided a regression for every head');
    const line = ran.stdout.split('\n').find((l) => l.startsWith('  select-only@2: '));
    const peak = /backend memory peak ([\d.]+) MB -> ([\d.]+) MB \(\+([\d.]+) MB, \+[\d.]+%\)/.exec(
      line ?? '',
    );
    expect(peak, line).not.toBeNull();
    expect(Number(peak![3])).toBeGreaterThanOrEqual(2);
    expect(ran.stdout).toMatch(/select-only@2 backend memory peak \+\d+\.\d%/);

    const result = JSON.parse(await readFile(await onlyResultsFile(out), 'utf8')) as RunResult;
    const peaks = (arm: string) =>
      median(
        result.samples
          .filter((s) => s.arm === arm && s.status === 'ok')
          .map((s) => s.metrics.backendMemoryPeakBytes!),
      );
    const delta = peaks('head') - peaks('base');
    expect(delta).toBeGreaterThanOrEqual(MB2);
    expect(delta).toBeLessThan(2 * BIND_BYTES);
    const judged = memoryLookup(result)('head', { workload: 'select-only', clients: 2 })!;
    expect(judged.moved).toBe(true);

    // The largest backend's memory contexts, near each run's end, beside its memory. The 4 MB is not in
    // a context then (MessageContext is reset before the next message: test/fixtures/memory-contexts), so
    // head's contexts hold what base's do and the 4 MB shows outside them: where a hacker looks next.
    const contexts = result.samples
      .filter((s) => s.status === 'ok')
      .map((s) => ({ arm: s.arm, c: s.memory?.contexts }));
    for (const { c } of contexts) {
      expect(c?.notRecorded, JSON.stringify(c)).toBeUndefined();
      expect(c!.top!.map((t) => t.name)).toContain('CacheMemoryContext');
    }
    const figure = (arm: string, of: (c: MemoryContextsRecord) => number) =>
      median(contexts.filter((x) => x.arm === arm).map((x) => of(x.c!)));
    const outside = (c: MemoryContextsRecord) => c.backendBytes! - c.totalBytes!;
    const total = (c: MemoryContextsRecord) => c.totalBytes!;
    console.log(
      `contexts: all ${figure('base', total)} -> ${figure('head', total)}; outside ${figure('base', outside)} -> ${figure('head', outside)}`,
    );
    expect(Math.abs(figure('head', total) - figure('base', total))).toBeLessThan(MB2 / 2);
    expect(figure('head', outside) - figure('base', outside)).toBeGreaterThanOrEqual(MB2);
    const contextsLine = ran.stdout.split('\n')[ran.stdout.split('\n').indexOf(line!) + 1];
    expect(contextsLine).toMatch(
      /^ {4}memory contexts of the largest backend, base -> head: CacheMemoryContext .*; all contexts [\d.]+ [kM]B -> [\d.]+ [kM]B; outside any context [\d.]+ kB -> [\d.]+ MB/,
    );
  }, 600_000);

  it('an A/A pair of one install reports no memory change', async () => {
    const out = path.join(tmp(), 'aa');
    const ran = await runCli(
      [
        'run',
        ...['--arm', `base=${installs.baseBinDir}`, '--arm', `aa=${installs.baseBinDir}`],
        ...['--workload', 'select-only', '--clients', '2', '--duration', '2', '--rounds', '4', '--seed', '7'],
        ...['--no-store', '--out', out, '--tmp-dir', tmp()],
      ],
      { source: true, cwd: tmp(), env: isolatedEnv(tmp()), killAfterMs: 280_000 },
    );
    const line = ran.stdout.split('\n').find((l) => l.startsWith('  select-only@2: '));
    expect(ran.stdout.split('\n')[0]).not.toMatch(/memory/);
    const peak = /backend memory peak ([\d.]+) MB -> ([\d.]+) MB \([+-]([\d.]+) (kB|MB|B)/.exec(line ?? '');
    expect(peak, line).not.toBeNull();
    expect(peak![4] === 'MB' ? Number(peak![3]) : 0).toBeLessThan(2);
    const result = JSON.parse(await readFile(await onlyResultsFile(out), 'utf8')) as RunResult;
    const judged = memoryLookup(result)('aa', { workload: 'select-only', clients: 2 })!;
    expect(judged.changes.length).toBeGreaterThan(0);
    expect(judged.moved).toBe(false);
  }, 300_000);
});
