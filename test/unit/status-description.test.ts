/**
 * The commit status names the failing cell and its metric: a latency rise can be what decided a
 * regression, and "+30%" alone would read as a TPS gain. The `worst-delta` output stays the primary metric's.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/compare/decision.js';
import { compareRun } from '../../src/compare/compare-run.js';
import { extremeCell } from '../../src/compare/extreme-cell.js';
import type { Sample } from '../../src/results/types.js';
import { seededRandom } from '../../src/stats/seeded-random.js';
import { document, gaussian, sample } from './compare/synthetic-run.js';

function run(p99Factor: number, tpsFactor: number) {
  const normal = gaussian(seededRandom(11));
  const samples: Sample[] = [];
  for (let round = 1; round <= 12; round++) {
    for (const clients of [1, 8]) {
      for (const arm of ['base', 'head']) {
        const head = arm === 'head' && clients === 8;
        samples.push(
          sample({
            round,
            workload: 'w',
            clients,
            arm,
            metrics: {
              tps: 10_000 * (head ? tpsFactor : 1) * Math.exp(0.01 * normal()),
              latencyP99Ms: 5 * (head ? p99Factor : 1) * Math.exp(0.01 * normal()),
            },
          }),
        );
      }
    }
  }
  return compareRun(
    document(['base', 'head'], { w: [1, 8] }, 12, samples, { w: { metrics: ['tps', 'p99'] } }),
  );
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
