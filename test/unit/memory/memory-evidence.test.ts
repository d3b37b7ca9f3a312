/**
 * Memory compared like the other steady costs: medians beyond both floors (bytes and percent) move, an A/A
 * pair does not; a moved memory metric gates by default (a regression when head holds more), a metric a
 * workload gates itself is left to the rounds' test, and a head whose memory moved is not passed on
 * unchanged steady evidence. The figures are those of a PostgreSQL 18 backend (test/fixtures/smaps-rollup).
 */
import { describe, expect, it } from 'vitest';
import { analyse } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { decideRun } from '../../../src/flows/compare/pipeline/decide-run.js';
import { judgeMemory, memoryLookup } from '../../../src/core/compare/evidence/memory-evidence.js';
import { formatBytes } from '../../../src/core/util/bytes.js';
import { steadySummary } from '../../../src/core/compare/evidence/steady-summary.js';
import { steadyCellLine } from '../../../src/core/report/terminal/comparison-text.js';
import type { RunResult, Sample } from '../../../src/core/results/result-types.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';
import { instructionRecord } from '../../../testkit/instruction-record.js';
import { seededRandom } from '../../../src/core/stats/seeded-random.js';

const MB = 1024 * 1024;

/** Every sample with backend memory about `mb` MB (±0.1 MB per run) and `temp` temp bytes/tx; head's shifted. */
function withMemory(result: RunResult, head: { mb?: number; temp?: number } = {}): RunResult {
  const random = seededRandom(3);
  return {
    ...result,
    samples: result.samples.map((s) => {
      const isHead = s.arm === 'head';
      const mb = (isHead ? (head.mb ?? 2.15) : 2.15) + (random() - 0.5) * 0.2;
      const temp = isHead ? (head.temp ?? 0) : 0;
      return {
        ...s,
        metrics: {
          ...s.metrics,
          backendMemoryPeakBytes: mb * MB * 1.05,
          backendMemoryMedianBytes: mb * MB,
          tempBytesPerTx: temp,
        },
      } satisfies Sample;
    }),
  };
}

function run(opts: { noise?: number; rounds?: number } = {}): RunResult {
  return {
    ...syntheticRun({
      seed: 12,
      rounds: opts.rounds ?? 6,
      workloads: { 'select-only': [1] },
      noise: opts.noise ?? 0.005,
      effect: () => 1,
    }),
    analysis: { alpha: 0.05, thresholdPct: 2, metric: 'tps' },
  };
}

describe('the memory judgement', () => {
  it('an A/A pair (the same figures with run-to-run wobble) moves nothing', () => {
    const result = withMemory(run());
    const judged = memoryLookup(result)('head', { workload: 'select-only', clients: 1 })!;
    expect(judged.moved).toBe(false);
    expect(judged.changes.map((c) => c.metric)).toEqual([
      'backendMemoryPeakBytes',
      'backendMemoryMedianBytes',
      'tempBytesPerTx',
    ]);
  });

  it('4 MB more per backend is beyond both floors; 0.5 MB more is not (below 2 MiB)', () => {
    expect(
      memoryLookup(withMemory(run(), { mb: 6.15 }))('head', { workload: 'select-only', clients: 1 })!.moved,
    ).toBe(true);
    expect(
      memoryLookup(withMemory(run(), { mb: 2.65 }))('head', { workload: 'select-only', clients: 1 })!.moved,
    ).toBe(false);
  });

  it('a large figure must also move by 20%: +12 MB on 100 MB does not', () => {
    const s = (arm: string, mb: number): Sample =>
      ({ arm, status: 'ok', metrics: { backendMemoryPeakBytes: mb * MB } }) as unknown as Sample;
    const base = [s('base', 100), s('base', 100), s('base', 100)];
    expect(judgeMemory(base, [s('head', 112), s('head', 112), s('head', 112)])!.moved).toBe(false);
    expect(judgeMemory(base, [s('head', 125), s('head', 125), s('head', 125)])!.moved).toBe(true);
    // Too few runs: no judgement.
    expect(judgeMemory(base.slice(0, 2), [s('head', 112), s('head', 112)])).toBeUndefined();
  });

  it('temp bytes from none: only the bytes floor applies', () => {
    const judged = memoryLookup(withMemory(run(), { temp: 65536 }))('head', {
      workload: 'select-only',
      clients: 1,
    })!;
    const temp = judged.changes.find((c) => c.metric === 'tempBytesPerTx')!;
    expect(temp).toMatchObject({ moved: true, deltaPct: null, base: 0, head: 65536 });
    expect(temp.message).toBe('temp bytes/tx 0 B -> 64 kB (+64 kB; medians of 6 and 6 runs)');
    expect(formatBytes(4.1 * MB)).toBe('4.1 MB');
    expect(formatBytes(-1.875 * MB)).toBe('-1.88 MB');
    expect(formatBytes(50 * 1024 * MB)).toBe('50 GB');
    expect(formatBytes(512)).toBe('512 B');
  });
});

describe('memory in the decision', () => {
  it('A/A: no memory cell, nothing fails', () => {
    const result = withMemory(run());
    const comparison = analyse(result);
    expect(comparison.comparisons[0]!.otherMetricCells).toEqual([]);
    expect(decideRun(result, comparison).outcome).not.toBe('failed');
  });

  it('a head whose backends hold 4 MB more fails by default, named with its figures', () => {
    const result = withMemory(run(), { mb: 6.15 });
    const comparison = analyse(result);
    const cells = comparison.comparisons[0]!.otherMetricCells;
    expect(cells.map((c) => [c.metric, c.verdict])).toEqual([
      ['backendMemoryPeakBytes', 'regression'],
      ['backendMemoryMedianBytes', 'regression'],
    ]);
    expect(cells[0]!.reasons[0]!.message).toMatch(
      /^backend memory peak 2\.\d+ MB -> 6\.\d+ MB \(\+4\.\d+ MB, \+\d+\.\d%; medians of 6 and 6 runs\): beyond both floors, 2 MB and 20%/,
    );
    const decision = decideRun(result, comparison);
    expect(decision.outcome).toBe('failed');
    expect(decision.cells.find((c) => c.metric === 'backendMemoryPeakBytes')!.evidence).toEqual(
      expect.stringMatching(
        /^backend memory peak 2\.\d+ MB -> 6\.\d+ MB \(\+4\.\d+ MB, \+\d+\.\d%; medians of 6 and 6 runs\)$/,
      ),
    );
    // And in the steady line of the terminal and the mail.
    const line = steadyCellLine(steadySummary(result)[0]!);
    expect(line).toMatch(/backend memory peak 2\.\d+ MB -> 6\.\d+ MB \(\+4\.\d+ MB, \+\d+\.\d%\)/);
    expect(line).toMatch(/temp bytes\/tx 0 -> 0/);
  });

  it('a workload that gates memory-peak itself is judged by the rounds, not added twice', () => {
    const base = withMemory(run(), { mb: 6.15 });
    const result: RunResult = {
      ...base,
      workloads: {
        'select-only': { ...(base.workloads?.['select-only'] as object), metrics: ['tps', 'memory-peak'] },
      },
    } as RunResult;
    const arm = analyse(result).comparisons[0]!;
    const peak = arm.otherMetricCells.filter((c) => c.metric === 'backendMemoryPeakBytes');
    expect(peak).toHaveLength(1);
    expect(peak[0]!.test).not.toBe('memory-floor');
    expect(peak[0]!.verdict).toBe('regression');
  });

  it('a head whose memory moved is not passed on unchanged steady evidence', () => {
    // TPS too noisy to decide, counts unchanged: steady evidence passes the 1-client cell ...
    const noisy = {
      ...run({ noise: 0.08, rounds: 5 }),
      instructions: instructionRecord({ seed: 5, effect: 0, cv: 0.0005 }),
    };
    const tps = (r: RunResult) => analyse(r).comparisons[0]!.cells.find((c) => c.metric === 'tps')!;
    expect(tps(withMemory(noisy)).reasons[0]!.code).toBe('steady-unchanged');
    // ... but not when its backends hold 4 MB more.
    const moved = tps(withMemory(noisy, { mb: 6.15 }));
    expect(moved.verdict).toBe('inconclusive');
    expect(moved.reasons.map((r) => r.code)).not.toContain('steady-unchanged');
  });
});
