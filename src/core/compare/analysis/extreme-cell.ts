import type { MetricName } from '../../results/metrics.js';
import type { ArmComparison, CellComparison, RunComparison } from '../comparison-types.js';

export interface ArmCell {
  arm: ArmComparison;
  cell: CellComparison;
}

/**
 * The cell with the most adverse (worst) or most favourable (best) delta across every head arm of one or
 * more comparisons (the machine classes of a fleet), in the direction of the cell's metric (for TPS the
 * most negative delta is the worst, for latency the most positive), over every gated metric or only
 * `metric`; null when no cell has a delta.
 */
export function extremeCell(
  c: RunComparison | readonly RunComparison[],
  which: 'worst' | 'best',
  metric?: MetricName,
): ArmCell | null {
  let found: ArmCell | null = null;
  let foundGain = 0;
  const arms = (Array.isArray(c) ? c : [c]).flatMap((r: RunComparison) => r.comparisons);
  for (const arm of arms) {
    for (const cell of [...arm.cells, ...arm.otherMetricCells]) {
      if (metric !== undefined && cell.metric !== metric) continue;
      if (cell.deltaPct === null || !Number.isFinite(cell.deltaPct)) continue;
      const gain = cell.better === 'higher' ? cell.deltaPct : -cell.deltaPct; // > 0: head is better
      if (found === null || (which === 'worst' ? gain < foundGain : gain > foundGain)) {
        found = { arm, cell };
        foundGain = gain;
      }
    }
  }
  return found;
}
