/**
 * Memory gated by default (docs/decision.md#memory): per head arm and cell, every memory metric whose medians
 * moved beyond both of its floors (memory-evidence.ts) becomes a gated cell of that arm, a regression when
 * head holds more, an improvement when less, among the arm's other gated metrics, and the arm's and the
 * run's verdicts are recombined (as the instruction cells are). A metric a workload gates itself (its
 * `metrics`, or `--metric`) is judged there by the rounds' test instead; a change inside the floors adds no
 * cell (the steady table still shows it).
 */
import { cellId, type RunResult } from '../../results/result-types.js';
import { METRICS } from '../../results/metrics.js';
import { documentCells } from '../cell-runs.js';
import { summarise, usable } from '../shift-statistics.js';
import { armVerdicts } from '../overall.js';
import { rejudged } from './rejudged.js';
import { gatingCells } from '../unstable.js';
import { MEMORY_FLOORS, memoryLookup, type MemoryChange } from '../evidence/memory-evidence.js';
import { formatBytes } from '../../util/bytes.js';
import { UNTESTED, type CellComparison, type RunComparison } from '../comparison-types.js';
import { hypothesisLabel } from './analysis.js';

/** The comparison with a gated cell for every memory metric that moved beyond its floors. */
export function withMemoryCells(comparison: RunComparison, result: RunResult): RunComparison {
  const lookup = memoryLookup(result);
  const label = (c: CellComparison) => hypothesisLabel(comparison, c.id, c.metric);
  let added = false;
  const comparisons = comparison.comparisons.map((arm) => {
    const gated = new Set([...arm.cells, ...arm.otherMetricCells].map((c) => `${c.id}\u0000${c.metric}`));
    const extra: CellComparison[] = [];
    for (const cell of documentCells(result)) {
      const judged = lookup(arm.head, cell);
      for (const change of judged?.changes ?? []) {
        if (!change.moved || gated.has(`${cellId(cell)}\u0000${change.metric}`)) continue;
        extra.push(memoryCell(cell, change, result, arm.head));
      }
    }
    if (extra.length === 0) return arm;
    added = true;
    const otherMetricCells = [...arm.otherMetricCells, ...extra];
    const gating = gatingCells([...arm.cells, ...otherMetricCells]);
    const overall = armVerdicts(gating, label, [
      ...Object.keys(arm.workloadVerdicts),
      ...gating.map((c) => c.workload),
    ]);
    return {
      ...arm,
      otherMetricCells,
      verdict: overall.verdict,
      decidingCells: overall.deciding,
      workloadVerdicts: overall.workloadVerdicts,
    };
  });
  if (!added) return comparison;
  return rejudged(
    comparison,
    comparisons,
    comparisons.flatMap((a) => a.otherMetricCells.map((c) => c.metric)),
  );
}

function memoryCell(
  cell: { workload: string; clients: number },
  change: MemoryChange,
  result: RunResult,
  head: string,
): CellComparison {
  const floor = MEMORY_FLOORS[change.metric]!;
  const runs = (arm: string) =>
    result.samples
      .filter(
        (s) =>
          s.status === 'ok' && s.arm === arm && s.workload === cell.workload && s.clients === cell.clients,
      )
      .map((s) => s.metrics[change.metric])
      .filter((v): v is number => v !== undefined);
  const more = change.deltaBytes > 0;
  return {
    id: cellId(cell),
    workload: cell.workload,
    clients: cell.clients,
    metric: change.metric,
    test: 'memory-floor',
    ...UNTESTED,
    base: summarise(usable(runs(result.arms[0]!.label)), 0),
    head: summarise(usable(runs(head)), 0),
    deltaPct: change.deltaPct,
    unusable: null,
    notes: [],
    better: METRICS[change.metric].better,
    alpha: 1,
    thresholdPct: floor.pct,
    verdict: more ? 'regression' : 'improvement',
    reasons: [
      {
        code: 'memory-beyond-floor',
        message: `${change.message}: beyond both floors, ${formatBytes(floor.bytes)} and ${floor.pct}% (memory gates by default)`,
      },
    ],
  };
}
