/**
 * The instruction mode's cells in the comparison: one CellComparison per head arm and counted cell (metric
 * 'instructions'), judged by the rule of instruction-rule.ts, among each arm's other gated metrics.
 */
import type { InstructionsRecord } from '../../results/instructions.js';
import { cellId, type RunResult } from '../../results/result-types.js';
import { summarise, usable } from '../shift-statistics.js';
import { hypothesisLabel } from './analysis.js';
import { armVerdicts } from '../overall.js';
import { rejudged } from './rejudged.js';
import { gatingCells } from '../unstable.js';
import { INSTRUCTION_METRIC, judgeInstructionCell } from '../evidence/instruction-rule.js';
import { UNTESTED, type ArmSummary, type CellComparison, type RunComparison } from '../comparison-types.js';

export { INSTRUCTION_METRIC } from '../evidence/instruction-rule.js';

/** One CellComparison per head arm and instruction cell (metric 'instructions'), keyed by head arm. */
export function instructionCells(result: RunResult): Map<string, CellComparison[]> {
  const record = result.instructions;
  const out = new Map<string, CellComparison[]>();
  if (!record || result.arms.length < 2) return out;
  const base = result.arms[0]!.label;
  const cells = new Map<string, { workload: string; clients: number }>();
  for (const s of record.samples) cells.set(cellId(s), { workload: s.workload, clients: s.clients });
  for (const arm of result.arms.slice(1)) {
    const list: CellComparison[] = [];
    for (const cell of cells.values()) {
      // A head whose default count failed alone has no count cell: its timed rounds decide.
      if (record.failures.some((f) => f.offered && f.workload === cell.workload && f.arm === arm.label))
        continue;
      list.push(instructionCell(record, cell, base, arm.label));
    }
    out.set(arm.label, list);
  }
  return out;
}

function instructionCell(
  record: InstructionsRecord,
  cell: { workload: string; clients: number },
  base: string,
  head: string,
): CellComparison {
  const { base: b, head: h, thresholdPct, judged, bistable } = judgeInstructionCell(record, cell, base, head);
  return {
    ...(bistable.length > 0
      ? {
          unstable: {
            arms: bistable.map((x) => x.arm),
            message:
              `bistable counts: the repetitions of ${bistable.map((x) => `${x.arm} split ${x.gapPct.toFixed(2)}% apart`).join(' and ')} ` +
              'into two groups (a layout or plan that differs from start to start); reported, not gated: count again, or with more repetitions',
          },
        }
      : {}),
    id: cellId(cell),
    workload: cell.workload,
    clients: cell.clients,
    metric: INSTRUCTION_METRIC,
    test: 'instruction-count',
    // Its noise is the repetitions' range (spreadPct), which its own rule already weighs.
    ...UNTESTED,
    base: summary(b),
    head: summary(h),
    deltaPct: judged.deltaPct,
    unusable: judged.reasons[0]?.code === 'insufficient-data' ? judged.reasons[0].message : null,
    notes: [],
    better: 'lower',
    alpha: 1,
    thresholdPct,
    verdict: judged.verdict,
    reasons: judged.reasons,
  };
}

/**
 * The comparison with the instruction cells of the results (if any) among each arm's other gated metrics,
 * the arm's and the run's verdicts recombined, so the decision, gate and headline judge them like any cell.
 */
export function withInstructionCells(comparison: RunComparison, result: RunResult): RunComparison {
  const byHead = instructionCells(result);
  if (byHead.size === 0) return comparison;
  const label = (c: CellComparison) => hypothesisLabel(comparison, c.id, c.metric);
  // --metric instructions: the counts are the run's cells (it had no timed rounds to fill them).
  const only = comparison.metric === INSTRUCTION_METRIC;
  const comparisons = comparison.comparisons.map((arm) => {
    const extra = byHead.get(arm.head) ?? [];
    if (extra.length === 0) return arm;
    const cells = only ? extra : arm.cells;
    const otherMetricCells = only ? [] : [...arm.otherMetricCells, ...extra];
    const gating = gatingCells([...cells, ...otherMetricCells]);
    const workloads = only
      ? gating.map((c) => c.workload)
      : [...Object.keys(arm.workloadVerdicts), ...gating.map((c) => c.workload)];
    const overall = armVerdicts(gating, label, workloads);
    return {
      ...arm,
      cells,
      otherMetricCells,
      likelyRegressionCells: only ? [] : arm.likelyRegressionCells,
      verdict: overall.verdict,
      decidingCells: overall.deciding,
      workloadVerdicts: overall.workloadVerdicts,
    };
  });
  return {
    ...rejudged(comparison, comparisons, [INSTRUCTION_METRIC]),
    // The timed analysis found no samples to judge: its warnings about them do not apply.
    ...(only ? { likelyRegressions: [], warnings: [] } : {}),
  };
}

function summary(values: readonly number[]): ArmSummary {
  return summarise(usable(values), 0);
}
