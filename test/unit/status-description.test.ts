/**
 * The commit status names the failing cell and its metric: a latency rise can be what decided a
 * regression, and "+30%" alone would read as a TPS gain. The `worst-delta` output stays the primary metric's.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/core/compare/decision/decision.js';
import { compareRun } from '../../src/core/compare/analysis/compare-run.js';
import { extremeCell } from '../../src/core/compare/analysis/extreme-cell.js';
import { tpsAndP99Run } from '../../testkit/synthetic-run.js';

function run(p99Factor: number, tpsFactor: number) {
  const at8 = (clients: number) => (clients === 8 ? { tps: tpsFactor, p99: p99Factor } : { tps: 1, p99: 1 });
  return compareRun(tpsAndP99Run(at8));
}

describe('commit status description', () => {
  it('names a latency metric when a p99 rise is the worst cell', () => {
    const c = run(1.3, 1);
    expect(c.verdict).toBe('regression');
    const d = decide(c);
    expect(d.status.state).toBe('failure');
    expect(d.status.description).toMatch(/^Failed: regression w@8 latency p99 \+\d+\.\d%$/);
    expect(d.cells[0]).toMatchObject({ id: 'w@8', metric: 'latencyP99Ms', failsGate: true });
    // The output's delta is TPS only: here a small one, not the p99 rise.
    const tps = extremeCell(c, 'worst', 'tps')!.cell;
    expect(tps.metric).toBe('tps');
    expect(Math.abs(tps.deltaPct!)).toBeLessThan(5);
  });

  it('names TPS when throughput fell, and an error when nothing could be compared', () => {
    const c = run(1, 0.8);
    expect(decide(c).status.description).toMatch(/^Failed: regression w@8 TPS -\d+\.\d%$/);
    const empty = { ...c, verdict: 'inconclusive' as const, comparisons: [] };
    expect(decide(empty).status).toEqual({
      state: 'error',
      description: 'Incomplete: nothing to compare: a comparison needs a base and a head arm; no verdict',
    });
  });
});
