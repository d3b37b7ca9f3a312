import { describe, expect, it } from 'vitest';
import { compareRun } from '../../../src/core/compare/analysis/compare-run.js';
import { decide } from '../../../src/core/compare/decision/decision.js';
import type { RunComparison } from '../../../src/core/compare/comparison-types.js';
import { renderComparisonText } from '../../../src/core/report/terminal/comparison-text.js';

const render = (c: RunComparison) => renderComparisonText(c, decide(c));
import { document, sample, syntheticRun } from '../../../testkit/synthetic-run.js';

describe('renderComparisonText', () => {
  const result = syntheticRun({
    seed: 3,
    rounds: 8,
    workloads: { tpcb: [1, 8, 64], select: [1, 8] },
    effect: (arm, workload, clients) => (arm === 'head' && workload === 'tpcb' && clients === 64 ? 0.9 : 1),
  });
  result.samples.push(
    sample({ round: 9, workload: 'tpcb', clients: 8, arm: 'head', metrics: {}, status: 'failed' }),
  );
  const text = render(compareRun(result));
  const lines = text.split('\n');

  it('puts the decision first, then what was compared', () => {
    expect(lines[0]).toMatch(
      /^FAILED: 1 regression: tpcb at 64 clients, TPS -\d+\.\d\d% \[95% CI -\d+\.\d\d%, -\d+\.\d\d%\]$/,
    );
    expect(lines[1]).toBe("compared: 'head' vs base 'base' (TPS, higher is better)");
    expect(text).toContain("head 'head' vs base 'base': regression (decided by tpcb@64)");
  });

  it('prints one aligned table per workload with the requested columns', () => {
    const header = lines.findIndex((l) => l.startsWith('clients'));
    expect(lines[header - 1]).toBe('workload tpcb (threshold 2%)');
    expect(lines[header]).toMatch(
      /^clients +n +base TPS \(median\) +head TPS \(median\) +per-round % \(geo\. mean\) +delta % \[95% CI\] +p \(adj\.\) +verdict$/,
    );
    const rows = lines.slice(header + 1, header + 4);
    expect(rows.map((r) => r.trim().split(/\s+/)[0])).toEqual(['1', '8', '64']);
    // Every row starts its verdict in the header's column.
    const verdictColumn = lines[header]!.indexOf('verdict');
    for (const row of rows)
      expect(row.slice(verdictColumn)).toMatch(/^(regression|no-change|inconclusive|improvement)/);
    expect(rows[2]).toMatch(
      / -\d+\.\d\d% \[-\d+\.\d\d%, -\d+\.\d\d%\] +[\d.e-]+ \([\d.e-]+\) +regression \(significant, beyond ±2%\)$/,
    );
    expect(text).toContain('workload select (threshold 2%)');
    expect(text).toMatch(/clients 8: 0 failed base run\(s\) and 1 failed head run\(s\) excluded/);
    expect(text).toMatch(
      /curve: base peak [\d.]+ TPS at 64 clients, knee \d+, no collapse; head peak [\d.]+ TPS at 64 clients, knee \d+, no collapse; peak -9\.\d+%/,
    );
  });

  it('ends with the warnings', () => {
    const start = lines.indexOf('warnings:');
    expect(start).toBeGreaterThan(0);
    expect(lines[start + 1]).toMatch(/^ {2}- 1 failed run\(s\) were excluded/);
  });

  it('says which sequential look decided and shows unreachable CI levels', () => {
    const small = syntheticRun({
      seed: 4,
      rounds: 3,
      workloads: { tpcb: [4] },
      effect: (arm) => (arm === 'head' ? 0.95 : 1),
    });
    const out = render(compareRun(small, { sequential: { schedule: [3, 6] } }));
    expect(out).toMatch(/decided at sequential look 1 of 2 \(schedule 3, 6 rounds\), per-look alpha 0\.031/);
    expect(out).toMatch(/@75%/); // 3 rounds cannot give a 95% interval (at most 1 − 2/2³)
    expect(out).toMatch(/inconclusive \(too few runs/);
  });

  it('renders a document with nothing to compare', () => {
    const out = render(compareRun(document(['base'], { tpcb: [1] }, 1, [])));
    expect(out.split('\n').slice(0, 2)).toEqual([
      'INCOMPLETE: Incomplete: nothing to compare: a comparison needs a base and a head arm; partial results decide nothing',
      'nothing to compare (TPS, higher is better)',
    ]);
    expect(out).toContain('a comparison needs a baseline and at least one head');
  });
});
