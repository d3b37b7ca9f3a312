import { describe, expect, it } from 'vitest';
import { compareCurves, curveSummary } from '../../../src/compare/curve.js';

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
