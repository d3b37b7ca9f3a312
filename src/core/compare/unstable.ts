/**
 * Unstable cells: client counts inside a collapse region of base's throughput curve (see
 * src/core/compare/analysis/curve.ts). Runs there are often bimodal (which cores the scheduler picks, which idle states
 * they sleep in), so a verdict there says more about the machine than about the patch: it is reported, but
 * it neither decides the arm's or the run's verdict nor fails the gate. Only base's curve counts: a
 * collapse that head alone shows is what the patch did, and it must fail the gate, not hide from it.
 */
import type { CellComparison, CurveComparison } from './comparison-types.js';

/** The cells with `unstable` set where base's curve of their workload collapses at their client count. */
export function markUnstableCells(
  cells: readonly CellComparison[],
  curves: readonly CurveComparison[],
): CellComparison[] {
  return cells.map((cell) => {
    const curve = curves.find((k) => k.workload === cell.workload);
    if (!curve) return cell;
    const inRegion = [curve.base].filter((arm) =>
      arm.collapseRegions.some((r) => r.clients.includes(cell.clients)),
    );
    if (inRegion.length === 0) return cell;
    const arms = inRegion.map((a) => a.arm);
    const where = inRegion
      .map((a) => {
        const region = a.collapseRegions.find((r) => r.clients.includes(cell.clients))!;
        return `${a.arm} (${Math.round(100 * (1 - region.lowestTps / a.peakTps))}% below its peak at ${a.peakClients} clients, recovering at ${region.recoveredAt})`;
      })
      .join(' and ');
    return {
      ...cell,
      unstable: {
        arms,
        message:
          `unstable: ${cell.clients} clients lies in a throughput collapse of ${where}; runs there are often ` +
          'bimodal, so this verdict is reported but does not gate',
      },
    };
  });
}

/** The cells that decide verdicts and the gate: every cell not flagged unstable. */
export function gatingCells<C extends Pick<CellComparison, 'unstable'>>(cells: readonly C[]): C[] {
  return cells.filter((c) => c.unstable === undefined);
}
