/**
 * Adaptive rounds against the real PostgreSQL and pgbench: two arms that differ strongly in one cell
 * (tpcb-like writes at 1 client, head with synchronous_commit off) and not in another (select-only reads).
 * The loop looks after 8 and 12 rounds; a decided cell gets no more runs, undecided ones go on, every look
 * is recorded, and the analysis of the document reproduces the verdicts the run acted on.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { designSequential } from '../../src/core/compare/analysis/adaptive.js';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import { analyse, resolveAnalysis } from '../../src/core/compare/analysis/recorded-analysis.js';
import { fileSink } from '../../src/run/sink.js';
import { cellId, type RunResult } from '../../src/core/results/result-types.js';
import { runBenchmark } from '../../src/run/run-loop.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';

const binDir = installedBinDir();
let tmp: string;
let result: RunResult;
const logger = memoryLogger();
const plan = designSequential({ schedule: [8, 12], spending: 'pocock' });

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-adaptive-'));
  await chmod(tmp, 0o755);
  const writes = parseWorkload(
    'name: writes\ntool: pgbench\nbuiltin: tpcb-like\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 1\nrounds: 5\n',
    'writes.yml',
  );
  const reads = parseWorkload(
    'name: reads\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 1\nrounds: 5\n',
    'reads.yml',
  );
  result = await runBenchmark(
    {
      arms: [
        // Base commits wait 10 ms before each WAL flush (commit_siblings 0: always); head's asynchronous
        // commits never flush at commit. Writes differ beyond any runner noise, reads not at all.
        { label: 'base', binDir, settings: { commit_delay: '10000', commit_siblings: '0' } },
        { label: 'head', binDir, settings: { synchronous_commit: 'off' } },
      ],
      workloads: [writes, reads],
      order: 'random',
      seed: 11,
      sink: fileSink(path.join(tmp, 'results.json')),
      analysis: resolveAnalysis(),
      adaptive: { plan },
      dataChecksums: false,
      tmpDir: tmp,
    },
    { runner: nodeProcessRunner, logger },
  );
}, 600_000);

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const lastRound = (id: string) =>
  Math.max(...result.samples.filter((s) => cellId(s) === id).map((s) => s.round));

describe('adaptive rounds in the run loop', () => {
  it('records every look at its scheduled rounds, and leaves no server behind', () => {
    expect(result.status).toBe('complete');
    expect(result.adaptive?.plan.schedule).toEqual([8, 12]);
    const looks = result.adaptive!.looks;
    expect(looks[0]).toMatchObject({ look: 1, rounds: 8 });
    for (const look of looks) expect(plan.schedule).toContain(look.rounds);
    expect(logger.lines.some((l) => /^look 1 of 2 at 8 rounds: /.test(l))).toBe(true);
    expect(processesMentioning(tmp)).toEqual([]);
    // The machine check ran before the run and is recorded, verdict and facts.
    expect(result.environment.preflight?.verdict).toMatch(
      /^(ready|usable with warnings|not fit for benchmarking)$/,
    );
    expect(result.environment.facts['preflight.verdict']).toBe(result.environment.preflight?.verdict);
  });

  it('stops a decided cell at its look and keeps measuring the open ones', () => {
    const looks = result.adaptive!.looks;
    // Asynchronous commit against a 10 ms commit delay: decided at the first look.
    expect(looks[0]!.decided).toContainEqual({ id: 'head:writes@1', verdict: 'improvement' });
    for (const look of looks) {
      for (const d of look.decided) {
        expect(lastRound(d.id.replace(/^head:/, ''))).toBeLessThanOrEqual(look.rounds);
      }
    }
    if (!looks[0]!.stop) {
      for (const open of looks[0]!.open) expect(lastRound(open.replace(/^head:/, ''))).toBeGreaterThan(8);
    }
  });

  it('the analysis of the document gives the verdicts the run acted on', () => {
    const comparison = analyse(result);
    const decided = new Map(result.adaptive!.looks.flatMap((l) => l.decided.map((d) => [d.id, d.verdict])));
    for (const cell of comparison.comparisons[0]!.cells) {
      const verdict = decided.get(`head:${cell.id}`);
      if (verdict) expect(cell.verdict).toBe(verdict);
    }
    expect(comparison.comparisons[0]!.cells.find((c) => c.id === 'writes@1')!.verdict).toBe('improvement');
  });
});
