/**
 * Every printed number has its unit, and a summary is printed only where it says something (#39 item 8):
 * the steady costs measured in time say µs or ms in the terminal and the mail (the comment's table has the
 * unit in its header), and a workload measured at one client count has no scaling-curve line.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '../../../src/core/compare/decision/decision.js';
import type { SteadyCellSummary } from '../../../src/core/compare/evidence/steady-summary.js';
import { renderComparisonText, steadyCellLine } from '../../../src/core/report/terminal/comparison-text.js';
import { renderMarkdownReport } from '../../../src/core/report/markdown/markdown.js';
import { METRICS, type SteadyMetricName } from '../../../src/core/results/metrics.js';
import { analyse } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { reportInputOf } from '../../../src/flows/compare/pipeline/report-input.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';

function row(metric: SteadyMetricName, base: number, head: number) {
  return {
    metric,
    name: metric,
    label: METRICS[metric].label,
    unit: METRICS[metric].unit,
    base,
    head,
    baseRuns: 5,
    headRuns: 5,
    deltaPct: 100 * (head / base - 1),
  };
}

describe('steady costs per transaction', () => {
  it('say the unit of a time (µs, ms); the other labels name theirs (bytes, blocks)', () => {
    const cell: SteadyCellSummary = {
      baseline: 'base',
      head: 'head',
      cell: 'w@1',
      workload: 'w',
      clients: 1,
      metrics: [
        row('walBytesPerTx', 7650, 10465),
        row('bufferHitsPerTx', 16.2, 17.8),
        row('readTimeMsPerTx', 0.21, 0.144),
        row('backendCpuUsPerTx', 738, 376),
      ],
    };
    expect(steadyCellLine(cell).split('; ')).toEqual([
      'WAL bytes/tx 7,650 -> 10,465 (+36.8%)',
      'buffer hits/tx 16.2 -> 17.8 (+9.9%)',
      'read time/tx 0.21 -> 0.144 ms (-31.4%)',
      'backend CPU/tx 738 -> 376 µs (-49.1%)',
    ]);
  });
});

describe('the scaling-curve line', () => {
  const render = (clients: number[]) => {
    const result = syntheticRun({ seed: 3, rounds: 6, workloads: { w: clients } });
    const c = analyse(result);
    return {
      text: renderComparisonText(c, decide(c)),
      md: renderMarkdownReport({ ...reportInputOf(result, c), commentId: 'x' }),
    };
  };

  it('is left out for a single client count', () => {
    const { text, md } = render([1]);
    expect(text).not.toContain('curve:');
    expect(md).not.toMatch(/still scaling|peak .* TPS at 1 clients/);
  });

  it('is printed for two client counts or more', () => {
    expect(render([1, 8]).text).toMatch(/^ {2}curve: base peak .* TPS at \d+ clients/m);
  });
});
