import { describe, expect, it } from 'vitest';
import { compareRun } from '../../../src/core/compare/analysis/compare-run.js';
import { compareCurves, curveSummary } from '../../../src/core/compare/analysis/curve.js';
import { decide } from '../../../src/core/compare/decision/decision.js';
import { renderComparisonText } from '../../../src/core/report/terminal/comparison-text.js';
import { COLLAPSE_DIP, syntheticRun } from '../../../testkit/synthetic-run.js';

const points = (medians: Record<number, number>) =>
  Object.entries(medians).map(([clients, m]) => ({
    clients: Number(clients),
    values: [m * 0.99, m, m * 1.01],
  }));

describe('curveSummary', () => {
  it('finds the peak and the first collapse past it, in client order', () => {
    const s = curveSummary('base', points({ 64: 7000, 1: 1000, 32: 9000, 16: 9500, 128: 5000 }), 0.2);
    expect(s).toMatchObject({ peakTps: 9500, peakClients: 16, collapseClients: 64 });
    expect(s!.points.map((p) => p.clients)).toEqual([1, 16, 32, 64, 128]);
  });

  it('reports no collapse when throughput stays within the fraction, and ignores unusable runs', () => {
    const s = curveSummary('base', [
      ...points({ 1: 1000, 8: 5000, 64: 4500 }),
      { clients: 256, values: [0, Number.NaN] },
    ]);
    expect(s).toMatchObject({ peakClients: 8, collapseClients: null });
    expect(curveSummary('base', [{ clients: 1, values: [] }])).toBeNull();
  });

  it('says how the peak and the collapse moved', () => {
    const base = curveSummary('base', points({ 1: 1000, 16: 9000, 32: 10_000, 64: 9000 }))!;
    const head = curveSummary('head', points({ 1: 1000, 16: 9500, 32: 8000, 64: 7000 }))!;
    const moved = compareCurves('tpcb', base, head);
    expect(moved).toMatchObject({ peakMoved: true, collapseMoved: true });
    expect(moved.peakDeltaPct).toBeCloseTo(-5, 10);
    expect(head.collapseClients).toBe(64);
  });
});

const DIP = COLLAPSE_DIP;
/** Scales to 8 clients, then a plateau within ±1.5%. */
const PLATEAU: Record<number, number> = {
  1: 30_000,
  2: 58_000,
  4: 110_000,
  8: 180_000,
  16: 183_000,
  32: 180_500,
  64: 182_000,
};

describe('knee and collapse regions on constructed curves', () => {
  it('a clean plateau: knee where the climb flattens, no collapse, no unstable cell', () => {
    const s = curveSummary('base', points(PLATEAU))!;
    // 8 -> 16 gains 1.7% per doubling: the knee is 8 (the peak at 16 is noise on the plateau).
    expect(s).toMatchObject({ peakClients: 16, kneeClients: 8, collapseClients: null, collapseRegions: [] });
  });

  it('a curve that scales to its last point is still scaling: knee = peak = the last count', () => {
    const s = curveSummary('base', points({ 1: 1000, 2: 1900, 4: 3600, 8: 7000 }))!;
    expect(s).toMatchObject({ peakClients: 8, kneeClients: 8 });
  });

  it('a real collapse that recovers is a region; a decline that never recovers is not', () => {
    const s = curveSummary('base', points(DIP))!;
    expect(s).toMatchObject({ peakClients: 16, kneeClients: 16, collapseClients: 32 });
    expect(s.collapseRegions).toEqual([{ clients: [32, 64], lowestTps: 135_000, recoveredAt: 128 }]);
    const overload = curveSummary('base', points({ 1: 1000, 8: 8000, 16: 9000, 32: 6000, 64: 4000 }))!;
    expect(overload).toMatchObject({ collapseClients: 32, collapseRegions: [] });
  });

  it('a dip between two near-equal tops is the same region whichever top is the argmax (no collapseMoved)', () => {
    const base = curveSummary('base', points(DIP))!;
    const head = curveSummary('head', points({ ...DIP, 128: 203_000 }))!;
    expect(head.peakClients).toBe(128);
    expect(head.collapseRegions).toEqual(base.collapseRegions);
    expect(compareCurves('w', base, head)).toMatchObject({ peakMoved: false, collapseMoved: false });
  });

  it('a peak that truly moved is flagged; a plateau whose argmax wanders is not', () => {
    const base = curveSummary('base', points({ 1: 1000, 8: 6000, 16: 9000, 32: 7000, 64: 6000 }))!;
    const head = curveSummary('head', points({ 1: 1000, 8: 6000, 16: 8000, 32: 9500, 64: 8000 }))!;
    expect(compareCurves('w', base, head)).toMatchObject({ peakMoved: true });
    // The same plateau with the argmax at 16 in one arm and 64 in the other: within 2%, not moved.
    const wander = curveSummary('head', points({ ...PLATEAU, 16: 180_000, 64: 183_500 }))!;
    expect(wander.peakClients).toBe(64);
    const flat = compareCurves('w', curveSummary('base', points(PLATEAU))!, wander);
    expect(flat).toMatchObject({ peakMoved: false, collapseMoved: false });
  });
});

describe('unstable cells (inside a collapse region) do not gate', () => {
  const sweep = [1, 2, 4, 8, 16, 32, 64, 128];
  const run = (effect: (arm: string, clients: number) => number) =>
    syntheticRun({
      seed: 21,
      rounds: 12,
      noise: 0.01,
      workloads: { ro: sweep },
      level: (_, clients) => DIP[clients]!,
      effect: (arm, _, clients) => effect(arm, clients),
    });

  it('a regression only inside the dip is reported, flagged unstable, and neither decides nor fails the gate', () => {
    const c = compareRun(run((arm, clients) => (arm === 'head' && clients === 32 ? 0.9 : 1)));
    const arm = c.comparisons[0]!;
    const dip = arm.cells.find((x) => x.clients === 32)!;
    expect(dip.verdict).toBe('regression');
    expect(dip.unstable?.arms).toEqual(['base']);
    expect(dip.unstable?.message).toMatch(/does not gate/);
    expect(arm.unstableCells).toEqual(['ro@32', 'ro@64']);
    expect(arm.decidingCells).not.toContain('ro@32');
    expect(c.verdict).not.toBe('regression');
    expect(decide(c).failure).toBeUndefined();
    expect(decide(c).counts.unstable).toBe(2);
    expect(c.warnings.join('\n')).toMatch(/ro@32, ro@64: inside a throughput collapse region/);
    const text = renderComparisonText(c, decide(c));
    expect(text).toMatch(/head 'head' vs base 'base': .*; unstable, not gated: ro@32, ro@64/);
    expect(text).toMatch(/\n +32 .*regression \([^)]*\) \[unstable, not gated\]/);
    expect(text).toMatch(
      /curve: base peak [\d.]+ TPS at 16 clients, knee 16, collapse 32-64 \(3\d% down, recovers at 128\)/,
    );
  });

  it("a collapse only head shows is the patch's doing: it gates as a regression, not as unstable", () => {
    const flat = [1, 2, 4, 8, 16, 32, 64, 128].map((clients) => Math.min(clients, 16) * 1000);
    const c = compareRun(
      syntheticRun({
        seed: 22,
        rounds: 12,
        noise: 0.01,
        workloads: { ro: sweep },
        level: (_, clients) => flat[sweep.indexOf(clients)]!,
        effect: (arm, _, clients) => (arm === 'head' && (clients === 32 || clients === 64) ? 0.6 : 1),
      }),
    );
    const arm = c.comparisons[0]!;
    expect(arm.curves[0]!.head.collapseRegions.length).toBeGreaterThan(0);
    expect(arm.unstableCells).toEqual([]);
    expect(c.verdict).toBe('regression');
    expect(decide(c).failure).toMatch(/^\d+ regressions?: ro at \d+ clients, TPS -/);
  });

  it('the same regression outside the dip gates as before', () => {
    const c = compareRun(run((arm, clients) => (arm === 'head' && clients === 16 ? 0.9 : 1)));
    expect(c.verdict).toBe('regression');
    expect(c.comparisons[0]!.decidingCells).toEqual(['ro@16']);
    expect(decide(c).failure).toMatch(/^1 regression: ro at 16 clients, TPS -/);
  });
});
