import type { ArmComparison, CellComparison, RunComparison } from './types.js';

export interface ArmCell {
  arm: ArmComparison;
  cell: CellComparison;
}

/**
 * The cell with the most adverse (worst) or most favourable (best) delta across every head arm, in the
 * metric's own direction (for TPS the most negative delta is the worst); null when no cell has a delta.
 */
export function extremeCell(c: RunComparison, which: 'worst' | 'best'): ArmCell | null {
  let found: ArmCell | null = null;
  let foundGain = 0;
  for (const arm of c.comparisons) {
    for (const cell of arm.cells) {
      if (cell.deltaPct === null || !Number.isFinite(cell.deltaPct)) continue;
      const gain = c.better === 'higher' ? cell.deltaPct : -cell.deltaPct; // > 0: head is better
      if (found === null || (which === 'worst' ? gain < foundGain : gain > foundGain)) {
        found = { arm, cell };
        foundGain = gain;
      }
    }
  }
  return found;
}
