/**
 * The compact per-workload line about the throughput curves, shared by the text and markdown reports:
 * each arm's peak, knee and collapse regions, then how the peak moved, e.g.
 * "base: peak 9,500 TPS at 16 clients, knee 8, collapse 32–64 (recovers at 128); head: peak 9,020 TPS at
 * 16 clients, knee 8, no collapse; peak −5.1%, collapse moved".
 */
import { formatPct } from '../../compare/format.js';
import type { CurveComparison, CurveSummary } from '../../compare/comparison-types.js';

export function curveLine(k: CurveComparison, tps: (value: number) => string, dash = '-'): string {
  const flags = [k.peakMoved ? 'peak moved' : '', k.collapseMoved ? 'collapse moved' : ''].filter(Boolean);
  return (
    `${arm(k.base, 'base', tps, dash, k.collapseFraction)}; ${arm(k.head, 'head', tps, dash, k.collapseFraction)}; ` +
    `peak ${formatPct(k.peakDeltaPct)}${flags.length ? `, ${flags.join(', ')}` : ''}`
  );
}

function arm(
  s: CurveSummary,
  role: string,
  tps: (value: number) => string,
  dash: string,
  fraction: number,
): string {
  const last = s.points[s.points.length - 1]?.clients;
  const knee =
    s.kneeClients === s.peakClients && s.peakClients === last ? 'still scaling' : `knee ${s.kneeClients}`;
  const regions = s.collapseRegions.map(
    (r) =>
      `${r.clients.length > 1 ? `${r.clients[0]}${dash}${r.clients[r.clients.length - 1]}` : r.clients[0]} ` +
      `(${Math.round(100 * (1 - r.lowestTps / s.peakTps))}% down, recovers at ${r.recoveredAt})`,
  );
  const collapse =
    regions.length > 0
      ? `collapse ${regions.join(', ')}`
      : s.collapseClients !== null
        ? `declines >${Math.round(fraction * 100)}% from ${s.collapseClients}`
        : 'no collapse';
  return `${role} peak ${tps(s.peakTps)} TPS at ${s.peakClients} clients, ${knee}, ${collapse}`;
}
