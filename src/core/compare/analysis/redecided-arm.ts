/**
 * A head's comparison with some of its cells decided by evidence other than its rounds (same compiled code,
 * changed code not executed): its verdict, deciding cells and workload verdicts recombined from the gated
 * cells, as analysis.ts combines them, so every surface judges the decided cells like any other.
 */
import type { ArmComparison, CellComparison } from '../comparison-types.js';
import { armVerdicts } from '../overall.js';
import { gatingCells } from '../unstable.js';

export function redecidedArm(
  arm: ArmComparison,
  decide: (cell: CellComparison) => CellComparison,
  label: (cell: CellComparison) => string,
): ArmComparison {
  const cells = arm.cells.map(decide);
  const otherMetricCells = arm.otherMetricCells.map(decide);
  const all = [...cells, ...otherMetricCells];
  const overall = armVerdicts(gatingCells(all), label, Object.keys(arm.workloadVerdicts));
  return {
    ...arm,
    cells,
    otherMetricCells,
    verdict: overall.verdict,
    decidingCells: overall.deciding,
    workloadVerdicts: overall.workloadVerdicts,
    unstableCells: [...new Set(all.filter((c) => c.unstable).map((c) => c.id))],
  };
}
