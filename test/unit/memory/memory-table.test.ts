/**
 * The per-metric tables of a memory metric read in sizes, as the steady line does ("1.9 MB", not
 * "1992294.4"), in the terminal and the markdown report; other metrics keep their decimals.
 */
import { describe, expect, it } from 'vitest';
import { analyse } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { decideRun } from '../../../src/flows/compare/pipeline/decide-run.js';
import { renderComparisonText } from '../../../src/core/report/terminal/comparison-text.js';
import { renderJobSummary } from '../../../src/core/report/markdown/markdown.js';
import type { RunResult, Sample } from '../../../src/core/results/result-types.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';

const MB = 1024 * 1024;

function run(): RunResult {
  const result = syntheticRun({
    seed: 4,
    rounds: 4,
    workloads: { 'select-only': [2] },
    noise: 0.005,
    effect: () => 1,
  });
  return {
    ...result,
    analysis: { alpha: 0.05, thresholdPct: 2, metric: 'tps' },
    samples: result.samples.map((s) => {
      const bytes = (s.arm === 'head' ? 5.9 : 1.9) * MB;
      return {
        ...s,
        metrics: { ...s.metrics, backendMemoryPeakBytes: bytes, backendMemoryMedianBytes: bytes },
      } satisfies Sample;
    }),
  };
}

describe('a memory metric in the per-metric tables', () => {
  it('reads its medians as sizes in the terminal and in markdown', () => {
    const result = run();
    const comparison = analyse(result);
    const decision = decideRun(result, comparison);
    const text = renderComparisonText(comparison, decision);
    const row = text.split('\n').find((l) => /^\s+2\s+4\/4\s+1\.9 MB\s+5\.9 MB\s/.test(l));
    expect(row, text).toBeDefined();
    expect(text).not.toMatch(/1992294/);
    // TPS keeps its decimals.
    expect(text).toMatch(/^\s+2\s+4\/4\s+\d+\.\d\s+\d+\.\d\s/m);
    const md = renderJobSummary({ result, comparison, decision });
    expect(md).toMatch(/\| 1\.9 MB \| 5\.9 MB \|/);
    expect(md).not.toMatch(/1,992,294/);
  });
});
