/**
 * Throughput-curve summaries per workload and arm: where throughput peaks over the client counts, where it
 * collapses past the peak, and how both moved between base and head. Descriptive: the per-cell tests decide.
 */
import { median } from 'simple-statistics';
import { DEFAULT_COLLAPSE_FRACTION } from './defaults.js';
import type { CurveComparison, CurveSummary } from './types.js';

/**
 * @param points  usable TPS values per client count (any order)
 * @param collapseFraction  a median below (1 − fraction)·peak past the peak is a collapse
 * @returns null when no client count has a usable value.
 */
export function curveSummary(
  arm: string,
  points: ReadonlyArray<{ clients: number; values: readonly number[] }>,
  collapseFraction = DEFAULT_COLLAPSE_FRACTION,
): CurveSummary | null {
  const curve = points
    .map(({ clients, values }) => ({ clients, values: values.filter((v) => Number.isFinite(v) && v > 0) }))
    .filter((p) => p.values.length > 0)
    .map((p) => ({ clients: p.clients, medianTps: median(p.values) }))
    .sort((a, b) => a.clients - b.clients);
  if (curve.length === 0) return null;
  let peak = curve[0]!;
  for (const p of curve) if (p.medianTps > peak.medianTps) peak = p;
  const floor = (1 - collapseFraction) * peak.medianTps;
  const collapse = curve.find((p) => p.clients > peak.clients && p.medianTps < floor);
  return {
    arm,
    points: curve,
    peakTps: peak.medianTps,
    peakClients: peak.clients,
    collapseClients: collapse?.clients ?? null,
  };
}

/** How the peak and the collapse point moved from base to head. */
export function compareCurves(
  workload: string,
  base: CurveSummary,
  head: CurveSummary,
  collapseFraction = DEFAULT_COLLAPSE_FRACTION,
): CurveComparison {
  return {
    workload,
    collapseFraction,
    base,
    head,
    peakDeltaPct: 100 * (head.peakTps / base.peakTps - 1),
    peakMoved: head.peakClients !== base.peakClients,
    collapseMoved: head.collapseClients !== base.collapseClients,
  };
}
