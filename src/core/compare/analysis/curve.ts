/**
 * Throughput-curve summaries per workload and arm over the client counts (each point the median TPS of its
 * runs), and how they moved between base and head. Descriptive: the per-cell tests decide verdicts.
 *
 * - peak: the client count with the highest median.
 * - knee: where the curve stops scaling: the smallest client count c from which the rest of the climb to the
 *   peak gains less than KNEE_GAIN_PER_DOUBLING (10%) per doubling of clients on average, i.e.
 *   (peak / median(c))^(1 / log2(peakClients / c)) < 1.1. Always at or below the peak; equal to it when the
 *   curve climbs steeply all the way (and then "still scaling" if the peak is the largest count). Measured
 *   against the peak rather than step by step, so one noisy point does not end the climb early.
 * - collapse: once the curve has reached its top zone (the first client count whose median is within
 *   `collapseFraction`, 20%, of the peak), the first later client count more than the fraction below the peak
 *   (collapseClients), and the collapse regions: runs of such client counts that a later client count
 *   recovers from (its median back within the fraction of the peak), like the many-core read-only dip that
 *   drops ~30% past ~22 clients and recovers past 100. Runs there are often bimodal (scheduler placement, idle
 *   states), so compareRun flags those cells unstable and leaves them out of the gate. A decline that never
 *   recovers is overload, not a region: its cells gate as usual. Measured from the top zone rather than from
 *   the argmax, so a dip between two near-equal tops is the same region whichever top noise makes the peak.
 */
import { median } from 'simple-statistics';
import { DEFAULT_COLLAPSE_FRACTION, DEFAULT_THRESHOLD_PCT } from '../defaults.js';
import type { CollapseRegion, CurveComparison, CurveSummary } from '../comparison-types.js';

/** Below this gain per doubling of clients (on the way to the peak) the curve has stopped scaling. */
export const KNEE_GAIN_PER_DOUBLING = 0.1;

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
  const top = topClients(curve, floor);
  const collapse = curve.find((p) => p.clients > top && p.medianTps < floor);
  return {
    arm,
    points: curve,
    peakTps: peak.medianTps,
    peakClients: peak.clients,
    kneeClients: knee(curve, peak),
    collapseClients: collapse?.clients ?? null,
    collapseRegions: collapseRegions(curve, top, floor),
  };
}

type Point = { clients: number; medianTps: number };

function knee(curve: readonly Point[], peak: Point): number {
  for (const p of curve) {
    if (p.clients >= peak.clients) break;
    const doublings = Math.log2(peak.clients / p.clients);
    if ((peak.medianTps / p.medianTps) ** (1 / doublings) - 1 < KNEE_GAIN_PER_DOUBLING) return p.clients;
  }
  return peak.clients;
}

/** The first client count whose median reaches `floor`: where the curve enters its top zone. */
function topClients(curve: readonly Point[], floor: number): number {
  return curve.find((p) => p.medianTps >= floor)!.clients;
}

/** Maximal runs of client counts past the top zone's start below `floor` that a later client count climbs back above. */
function collapseRegions(curve: readonly Point[], top: number, floor: number): CollapseRegion[] {
  const regions: CollapseRegion[] = [];
  let run: Point[] = [];
  for (const p of curve.filter((q) => q.clients > top)) {
    if (p.medianTps < floor) {
      run.push(p);
      continue;
    }
    if (run.length > 0) {
      regions.push({
        clients: run.map((q) => q.clients),
        lowestTps: Math.min(...run.map((q) => q.medianTps)),
        recoveredAt: p.clients,
      });
    }
    run = [];
  }
  return regions;
}

/**
 * How the peak and the collapse point moved from base to head, with a tolerance so that noise on a plateau
 * does not move them: medians within `tolerancePct` of each other are indistinguishable.
 *
 * - peakMoved: each arm's peak client count lies outside the other arm's plateau (the client counts whose
 *   median is within the tolerance of that arm's peak). On a flat top, where several client counts tie
 *   within the tolerance, the argmax wanders with noise but the plateaus overlap: not moved.
 * - collapseMoved: some client count past both arms' top-zone starts is clearly collapsed in one arm (median
 *   below (1 − fraction − tol)·peak) and clearly not in the other (above (1 − fraction + tol)·peak).
 *
 * Descriptive, not a test: the per-cell tests decide verdicts. The tolerance defaults to the practical
 * threshold δ (compareRun passes the workload's threshold).
 */
export function compareCurves(
  workload: string,
  base: CurveSummary,
  head: CurveSummary,
  collapseFraction = DEFAULT_COLLAPSE_FRACTION,
  tolerancePct = DEFAULT_THRESHOLD_PCT,
): CurveComparison {
  const tol = tolerancePct / 100;
  const plateau = (c: CurveSummary) =>
    new Set(c.points.filter((p) => p.medianTps >= (1 - tol) * c.peakTps).map((p) => p.clients));
  const peakMoved = !plateau(base).has(head.peakClients) && !plateau(head).has(base.peakClients);
  const at = (c: CurveSummary, clients: number) => c.points.find((p) => p.clients === clients)?.medianTps;
  // Judged past the start of each arm's top zone, not past its argmax: on two near-equal tops the argmax
  // jumps with noise, and a dip between them is the same dip either way.
  const top = (c: CurveSummary) => topClients(c.points, (1 - collapseFraction) * c.peakTps);
  const state = (c: CurveSummary, clients: number): 'collapsed' | 'standing' | 'unclear' | null => {
    const v = at(c, clients);
    if (v === undefined) return null;
    if (clients <= top(c)) return clients < top(c) ? null : 'standing';
    if (v < (1 - collapseFraction - tol) * c.peakTps) return 'collapsed';
    if (v > (1 - collapseFraction + tol) * c.peakTps) return 'standing';
    return 'unclear';
  };
  const collapseMoved = base.points.some((p) => {
    const b = state(base, p.clients);
    const h = state(head, p.clients);
    return (b === 'collapsed' && h === 'standing') || (b === 'standing' && h === 'collapsed');
  });
  return {
    workload,
    collapseFraction,
    base,
    head,
    peakDeltaPct: 100 * (head.peakTps / base.peakTps - 1),
    tolerancePct,
    peakMoved,
    collapseMoved,
  };
}
