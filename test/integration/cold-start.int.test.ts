/**
 * Cold starts and the I/O-path steady metrics through a real `pgperf run` (from source) with Debian's
 * PostgreSQL 15 as both arms: the shipped select-only-cold workload, on a data set that fits in shared
 * buffers (so that its warm twice reads next to nothing), next to the same workload without coldStart.
 * Every cold run restarts the server and drops the page cache first, so it reads the data it touches
 * (buffer reads per transaction above 0, with a read time: track_io_timing is on for cold starts); the warm
 * one, after its warm-up, reads about nothing. Directions only, never sizes: this runner is noisy.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { ROOT, onlyResults, runCli, sameInstallRunArgs } from '../helpers/cli.js';
import { useTmpDir } from '../helpers/tmp-dir.js';
import type { Sample } from '../../src/core/results/result-types.js';

const PG15 = '/usr/lib/postgresql/15/bin';
const tmp = useTmpDir('pgperf-it-cold-');

/** The shipped cold workload, made short and small: scale 2 (about 30 MB) in 64 MB of shared buffers. */
async function workloads(dir: string): Promise<string[]> {
  const shipped = parse(await readFile(path.join(ROOT, 'workloads/select-only-cold.yml'), 'utf8')) as Record<
    string,
    unknown
  >;
  const short: Record<string, unknown> = {
    ...shipped,
    scale: 2,
    clients: [1],
    duration: 3,
    warmup: 2,
    rounds: 2,
    settings: { shared_buffers: '64MB' },
  };
  const warm: Record<string, unknown> = { ...short, name: 'select-only-warm' };
  delete warm.coldStart;
  const files = [path.join(dir, 'select-only-cold.yml'), path.join(dir, 'select-only-warm.yml')];
  await writeFile(files[0]!, stringify(short));
  await writeFile(files[1]!, stringify(warm));
  return files;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('a cold-start workload next to its warm twin (PostgreSQL 15, real runs)', () => {
  it('reads what it touches when cold, about nothing when warm, and records that it ran cold', async () => {
    const [cold, warm] = await workloads(tmp());
    const out = path.join(tmp(), 'out');
    const ran = await runCli(
      [...sameInstallRunArgs(PG15, tmp(), cold!, out), '--workload', warm!, '--fail-on', 'never', '--force'],
      { cwd: tmp(), source: true, killAfterMs: 170_000 },
    );
    expect(ran.code, ran.stderr).toBe(0);
    const result = await onlyResults(out);
    const ok = (w: string) => result.samples.filter((s: Sample) => s.workload === w && s.status === 'ok');
    const coldRuns = ok('select-only-cold');
    const warmRuns = ok('select-only-warm');
    expect(coldRuns).toHaveLength(4);
    expect(warmRuns).toHaveLength(4);

    const reads = (runs: Sample[]) => runs.map((s) => s.metrics.bufferReadsPerTx!);
    const coldReads = median(reads(coldRuns));
    const warmReads = median(reads(warmRuns));
    console.log(`buffer reads/tx: cold ${reads(coldRuns).join(', ')}; warm ${reads(warmRuns).join(', ')}`);
    expect(coldReads).toBeGreaterThan(0);
    expect(coldReads).toBeGreaterThan(warmReads);
    // Every cold run read something; the warm ones far less than cold ones.
    for (const r of reads(coldRuns)) expect(r).toBeGreaterThan(0);
    expect(Math.max(...reads(warmRuns))).toBeLessThan(Math.min(...reads(coldRuns)));

    for (const s of coldRuns) {
      expect(s.steady?.cold).toEqual({ restarted: true, pageCacheDropped: expect.any(Boolean) as boolean });
      // track_io_timing is on for cold starts: the reads took time.
      expect(s.metrics.readTimeMsPerTx).toBeGreaterThan(0);
      // PostgreSQL 15 has no pg_stat_io: said, not guessed.
      expect(s.metrics.ioReadsPerTx).toBeUndefined();
      expect(s.steady?.unavailable).toContain('I/O operations (pg_stat_io: PostgreSQL 16+)');
    }
    const dropped = coldRuns.every((s) => s.steady?.cold?.pageCacheDropped);
    const noDropWarnings = result.warnings.filter((w) => w.includes('page cache could not be dropped'));
    expect(noDropWarnings).toHaveLength(dropped ? 0 : 1);
    for (const s of warmRuns) {
      expect(s.steady?.cold).toBeUndefined();
      expect(s.metrics.readTimeMsPerTx).toBeUndefined();
      expect(s.steady?.deltas.blkReadTimeMs).toBeUndefined();
    }
    expect(result.workloads['select-only-cold']).toMatchObject({ coldStart: true });
    expect(result.workloads['select-only-warm']).not.toHaveProperty('coldStart');
  }, 180_000);
});
