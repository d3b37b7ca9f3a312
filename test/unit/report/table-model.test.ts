import { describe, expect, it } from 'vitest';
import { compareRun } from '../../../src/core/compare/analysis/compare-run.js';
import { decideRun } from '../../../src/flows/compare/pipeline/decide-run.js';
import { renderComparisonText } from '../../../src/core/report/terminal/comparison-text.js';
import { renderMarkdownReport } from '../../../src/core/report/markdown/markdown.js';
import { columns, PER_ROUND_HEADER } from '../../../src/core/report/table-cells.js';
import { buildTables, deltaLegend, groupNotes, type TableRow } from '../../../src/core/report/table-model.js';
import type { RunResult } from '../../../src/core/results/result-types.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';

/** ln(head/base) per round of one cell, from the samples themselves. */
function logRatios(result: RunResult, workload: string, clients: number): number[] {
  const value = (arm: string, round: number) =>
    result.samples.find(
      (s) => s.arm === arm && s.workload === workload && s.clients === clients && s.round === round,
    )!.metrics.tps!;
  return Array.from({ length: result.plan.rounds }, (_, i) =>
    Math.log(value('head', i + 1) / value('base', i + 1)),
  );
}

describe('the table model: figures a reader can reconcile', () => {
  // Noisy rounds that head and base share: the arms' medians and the paired shift tell different stories.
  const result = syntheticRun({
    seed: 3,
    rounds: 10,
    noise: 0.05,
    workloads: { tpcb: [1, 8] },
    effect: (arm, _, __, round) => (arm === 'head' ? 0.96 : 1) * (1 + 0.1 * Math.sin(round)),
  });
  const comparison = compareRun(result);
  const [arm] = buildTables(comparison);
  const table = arm!.workloads[0]!.tables[0]!;

  it('gives paired rows the geometric mean of their per-round head/base ratios, beside delta', () => {
    expect(table.paired).toBe(true);
    for (const row of table.rows) {
      const d = logRatios(result, 'tpcb', row.clients);
      const geoMean = 100 * Math.expm1(d.reduce((a, b) => a + b, 0) / d.length);
      expect(row.test).toBe('signed-rank');
      expect(row.pairs).toBe(10);
      expect(row.perRoundPct).toBeCloseTo(geoMean, 9);
    }
    expect(columns(table).map((c) => c.header)).toEqual([
      'clients',
      'n',
      'base TPS (median)',
      'head TPS (median)',
      PER_ROUND_HEADER,
      'delta % [95% CI]',
      'p (adj.)',
      'verdict',
    ]);
  });

  it('says what delta is, once per arm, in every markup', () => {
    expect(arm!.legend).toHaveLength(1);
    expect(arm!.legend[0]).toMatch(
      /^delta: paired Hodges-Lehmann shift of the per-round head\/base ratios, with its 95% CI; p: Wilcoxon signed-rank test on those ratios .*per-round %: their geometric mean/,
    );
    const text = renderComparisonText(comparison, decideRun(result, comparison));
    expect(text.split(arm!.legend[0]!)).toHaveLength(2);
    const md = renderMarkdownReport({
      result,
      comparison,
      decision: decideRun(result, comparison),
      commentId: 'x',
    });
    expect(md).toContain('_delta: paired Hodges-Lehmann shift of the per-round head/base ratios');
  });

  it('names the unpaired test and drops the per-round column when nothing pairs (a stored baseline)', () => {
    const [unpaired] = buildTables(compareRun(result, { test: 'unpaired' }));
    const t = unpaired!.workloads[0]!.tables[0]!;
    expect(t.paired).toBe(false);
    expect(t.rows.every((r) => r.test === 'mann-whitney' && r.perRoundPct === null && r.pairs === null)).toBe(
      true,
    );
    expect(columns(t).map((c) => c.header)).not.toContain(PER_ROUND_HEADER);
    expect(unpaired!.legend).toEqual([
      'delta: unpaired Hodges-Lehmann shift, the median head/base over every pair of a base and a head run, ' +
        'with its 95% CI: an estimate of the ratio of the medians; p: Mann-Whitney rank-sum test (Holm-adjusted in parentheses).',
    ]);
  });

  it('names the cells of each test when the paired test had to give way in some (five rounds, two cells)', () => {
    // The demo's design: five pairs cannot reach α over two cells, so Mann-Whitney decides both.
    const demo = syntheticRun({
      seed: 5,
      rounds: 5,
      workloads: { w: [1, 4] },
      effect: (a) => (a === 'head' ? 3 : 1),
    });
    const c = compareRun(demo);
    const [a] = buildTables(c);
    const t = a!.workloads[0]!.tables[0]!;
    expect(t.rows.map((r) => r.test)).toEqual(['mann-whitney', 'mann-whitney']);
    expect(a!.legend[0]).toMatch(/^delta: unpaired Hodges-Lehmann shift/);
    // The fallback note is said once, for both client counts.
    expect(t.notes).toEqual([
      {
        clients: [1, 4],
        message: expect.stringMatching(
          /^5 complete round\(s\) cannot reach α 0\.05 over 2 comparisons with the paired test/,
        ),
      },
    ]);
    const text = renderComparisonText(c, decideRun(demo, c));
    expect(text.match(/complete round\(s\) cannot reach/g)).toHaveLength(1);
    expect(text).toMatch(/^ {2}clients 1, 4: 5 complete round\(s\) cannot reach α 0\.05/m);
    const md = renderMarkdownReport({
      result: demo,
      comparison: c,
      decision: decideRun(demo, c),
      commentId: 'x',
    });
    expect(md).toMatch(/^- 1 and 4 clients: 5 complete round\(s\) cannot reach/m);
  });

  it('legend names the cells of each test when both occur, and explains @x%', () => {
    const row = (id: string, test: TableRow['test'], achievedLevel: number): TableRow => ({
      id,
      clients: 1,
      baseN: 6,
      headN: 6,
      baseMedian: 1,
      headMedian: 1,
      test,
      pairs: null,
      perRoundPct: null,
      deltaPct: 0,
      ci95: { level: 0.95, achievedLevel, lowerPct: -1, upperPct: 1 },
      p: 1,
      pAdjusted: 1,
      verdict: 'inconclusive',
      reason: '',
      unstable: false,
    });
    const legend = deltaLegend([row('w@1', 'signed-rank', 0.95), row('w@2', 'mann-whitney', 0.9)]);
    expect(legend).toHaveLength(3);
    expect(legend[0]).toMatch(/^delta \(w@1\): paired Hodges-Lehmann shift/);
    expect(legend[1]).toMatch(/^delta \(w@2\): unpaired Hodges-Lehmann shift/);
    expect(legend[2]).toBe('@x%: the confidence an interval reaches when the runs are too few for 95%.');
    expect(deltaLegend([row('w@1', null, 0.95)])).toEqual([]);
  });
});

describe('groupNotes: per-cell boilerplate said once, numbers kept', () => {
  it('merges notes of one code and wording, whatever their numbers', () => {
    expect(
      groupNotes([
        {
          clients: 1,
          code: 'failed-runs-excluded',
          message: '1 failed base run(s) and 0 failed head run(s) excluded',
        },
        { clients: 2, code: 'ties-approximate-ci', message: 'tied values: p is exact given the ties' },
        {
          clients: 4,
          code: 'failed-runs-excluded',
          message: '2 failed base run(s) and 0 failed head run(s) excluded',
        },
        {
          clients: 8,
          code: 'failed-runs-excluded',
          message: '1 failed base run(s) and 0 failed head run(s) excluded',
        },
        { clients: 8, code: 'ties-approximate-ci', message: 'tied values: p is exact given the ties' },
      ]),
    ).toEqual([
      {
        clients: [1, 4, 8],
        message:
          '1 at 1 client, 2 at 4 clients, 1 at 8 clients failed base run(s) and 0 failed head run(s) excluded',
      },
      { clients: [2, 8], message: 'tied values: p is exact given the ties' },
    ]);
  });

  it('keeps apart notes of one code worded differently, and notes of different codes', () => {
    const notes = groupNotes([
      { clients: 1, code: 'ties-approximate-ci', message: 'tied values: p is exact given the ties' },
      { clients: 2, code: 'ties-approximate-ci', message: 'tied or zero log-ratios: p is exact given them' },
      {
        clients: 4,
        code: 'unpaired-rounds-dropped',
        message: '1 round(s) with a usable run in only one arm',
      },
      {
        clients: 8,
        code: 'unstable',
        message: 'unstable: 8 clients lies in a collapse (28% below its peak)',
      },
      {
        clients: 16,
        code: 'unstable',
        message: 'unstable: 16 clients lies in a collapse (31.5% below its peak)',
      },
    ]);
    expect(notes).toEqual([
      { clients: [1], message: 'tied values: p is exact given the ties' },
      { clients: [2], message: 'tied or zero log-ratios: p is exact given them' },
      { clients: [4], message: '1 round(s) with a usable run in only one arm' },
      {
        clients: [8, 16],
        message:
          'unstable: 8, 16 clients lies in a collapse (28% at 8 clients, 31.5% at 16 clients below its peak)',
      },
    ]);
  });

  it('says which cell each differing number is of, with its unit: no bare "{39.4, 66.4}%" (#39)', () => {
    const note = (clients: number, pct: string) => ({
      clients,
      code: 'noisy-cell' as const,
      message: `unstable on this runner: an A/A-style spread of ${pct}% (head against base per round) exceeds the 2% threshold`,
    });
    expect(groupNotes([note(1, '39.4'), note(2, '66.4')])).toEqual([
      {
        clients: [1, 2],
        message:
          'unstable on this runner: an A/A-style spread of 39.4% at 1 client, 66.4% at 2 clients (head against base per round) exceeds the 2% threshold',
      },
    ]);
  });

  it('keeps signs and exponents of numbers whole', () => {
    expect(
      groupNotes([
        {
          clients: 1,
          code: 'welch-disagrees',
          message: "Welch's t (p 3.0e-8) and the rank test (p 0.2) disagree at α 0.05",
        },
        {
          clients: 2,
          code: 'welch-disagrees',
          message: "Welch's t (p 0.01) and the rank test (p 0.2) disagree at α 0.05",
        },
      ]),
    ).toEqual([
      {
        clients: [1, 2],
        message:
          "Welch's t (p 3.0e-8 at 1 client, 0.01 at 2 clients) and the rank test (p 0.2) disagree at α 0.05",
      },
    ]);
  });
});
