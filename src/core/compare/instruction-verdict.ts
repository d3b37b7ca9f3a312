/**
 * The verdict rule of the instruction mode (docs/instructions.md), for near-deterministic counts: with the
 * k repetitions of each arm, m = the arm's median instructions per transaction, Δ% = 100·(m_head/m_base − 1),
 * and the spread s = the larger of the two arms' relative ranges 100·(max − min)/median:
 *
 * | verdict      | condition                                                            |
 * |--------------|----------------------------------------------------------------------|
 * | regression   | Δ% ≥ +δ and every head repetition above every base one (separated)   |
 * | improvement  | Δ% ≤ −δ and every head repetition below every base one              |
 * | no-change    | |Δ%| + s/2 < δ (the change, widened by half the spread, inside ±δ)  |
 * | inconclusive | otherwise (overlapping arms, or a spread beyond δ), fewer than 2 repetitions in an arm, or mixed counters |
 *
 * Instructions are lower-is-better. One round (the k repetitions) decides; no p-value, no Holm. Separation
 * bounds the false alarms whatever the counter's noise: with no real change, all k head counts land above
 * all k base counts with probability 1/C(2k, k) (5% at k = 3, 1.4% at k = 4), and Δ% ≥ δ on top makes it
 * far rarer when the spread is small against δ (bench/instruction-rule.ts measures both).
 */
import {
  DEFAULT_INSTRUCTION_SETTINGS,
  type InstructionSample,
  type InstructionsRecord,
} from '../results/instructions.js';
import { cellId, type RunResult } from '../results/types.js';
import { median } from 'simple-statistics';
import { formatPct } from './format.js';
import { summarise, usable } from './shift-statistics.js';
import { hypothesisLabel } from './analysis.js';
import { armVerdicts, overallVerdict } from './overall.js';
import { gatingCells } from './unstable.js';
import type { ArmSummary, CellComparison, Reason, RunComparison, Verdict } from './types.js';

export const INSTRUCTION_METRIC = 'instructions' as const;

interface InstructionJudgement {
  verdict: Verdict;
  deltaPct: number | null;
  /** The larger per-arm relative range, in percent; null below two repetitions. */
  spreadPct: number | null;
  reasons: Reason[];
}

/** The rule above on one cell's per-transaction counts. */
export function judgeInstructions(
  base: readonly number[],
  head: readonly number[],
  thresholdPct: number,
): InstructionJudgement {
  if (base.length < 2 || head.length < 2) {
    return {
      verdict: 'inconclusive',
      deltaPct: base.length && head.length ? pct(median(head), median(base)) : null,
      spreadPct: null,
      reasons: [
        {
          code: 'insufficient-data',
          message: `instructions: ${Math.min(base.length, head.length)} repetition(s) in an arm; the rule needs at least 2 per arm for their spread`,
        },
      ],
    };
  }
  const deltaPct = pct(median(head), median(base));
  const spreadPct = Math.max(rangePct(base), rangePct(head));
  const separated =
    deltaPct > 0 ? Math.min(...head) > Math.max(...base) : Math.max(...head) < Math.min(...base);
  const d = formatPct(deltaPct);
  const s = `${spreadPct.toFixed(2)}%`;
  const judged = (verdict: Verdict, code: Reason['code'], message: string): InstructionJudgement => ({
    verdict,
    deltaPct,
    spreadPct,
    reasons: [{ code, message }],
  });
  if (Math.abs(deltaPct) >= thresholdPct) {
    if (separated) {
      return judged(
        deltaPct > 0 ? 'regression' : 'improvement',
        'significant-beyond-threshold',
        `instructions/tx ${d}, beyond ±${thresholdPct}%, every repetition of head ${deltaPct > 0 ? 'above' : 'below'} every one of base (per-arm spread ${s})`,
      );
    }
    return judged(
      'inconclusive',
      'ci-wider-than-threshold',
      `instructions/tx ${d}, beyond ±${thresholdPct}%, but the repetitions of the two arms overlap (per-arm spread ${s}): the counts are not steady enough to tell`,
    );
  }
  if (Math.abs(deltaPct) + spreadPct / 2 < thresholdPct) {
    return judged(
      'no-change',
      'ci-inside-threshold',
      `instructions/tx ${d}, inside ±${thresholdPct}% even widened by half the per-arm spread (${s})`,
    );
  }
  return judged(
    'inconclusive',
    'ci-wider-than-threshold',
    `instructions/tx ${d}, but with half the per-arm spread (${s}) it reaches ±${thresholdPct}%`,
  );
}

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
  const of = (arm: string) =>
    record.samples.filter((s) => s.workload === cell.workload && s.clients === cell.clients && s.arm === arm);
  const b = of(base);
  const h = of(head);
  const thresholdPct =
    record.settings[cell.workload]?.thresholdPct ?? DEFAULT_INSTRUCTION_SETTINGS.thresholdPct;
  const counters = new Set([...b, ...h].map((s) => s.counter));
  const judged: InstructionJudgement =
    counters.size > 1
      ? {
          verdict: 'inconclusive',
          deltaPct: null,
          spreadPct: null,
          reasons: [
            {
              code: 'insufficient-data',
              message: `instructions: counted with different counters (${[...counters].join(' and ')}); simulated and hardware counts are never compared`,
            },
          ],
        }
      : judgeInstructions(perTx(b), perTx(h), thresholdPct);
  return {
    id: cellId(cell),
    workload: cell.workload,
    clients: cell.clients,
    metric: INSTRUCTION_METRIC,
    test: 'instruction-count',
    pairs: null,
    base: summary(perTx(b)),
    head: summary(perTx(h)),
    deltaPct: judged.deltaPct,
    ci95: null,
    ci90: null,
    ciEquivalence: null,
    p: null,
    method: null,
    minAchievableP: null,
    welch: null,
    pairedT: null,
    bootstrap: null,
    unusable: judged.reasons[0]?.code === 'insufficient-data' ? judged.reasons[0].message : null,
    // Its noise is the repetitions' range (spreadPct), which its own rule already weighs.
    aaSpreadPct: null,
    notes: [],
    better: 'lower',
    alpha: 1,
    thresholdPct,
    pAdjusted: null,
    familySize: 1,
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
  const comparisons = comparison.comparisons.map((arm) => {
    const extra = byHead.get(arm.head) ?? [];
    if (extra.length === 0) return arm;
    const otherMetricCells = [...arm.otherMetricCells, ...extra];
    const gating = gatingCells([...arm.cells, ...otherMetricCells]);
    const workloads = [...Object.keys(arm.workloadVerdicts), ...gating.map((c) => c.workload)];
    const overall = armVerdicts(gating, label, workloads);
    return {
      ...arm,
      otherMetricCells,
      verdict: overall.verdict,
      decidingCells: overall.deciding,
      workloadVerdicts: overall.workloadVerdicts,
    };
  });
  const overall = overallVerdict(comparisons.map((c) => ({ id: c.head, verdict: c.verdict })));
  const gatedMetrics = comparison.gatedMetrics.includes(INSTRUCTION_METRIC)
    ? comparison.gatedMetrics
    : [...comparison.gatedMetrics, INSTRUCTION_METRIC];
  return {
    ...comparison,
    comparisons,
    gatedMetrics,
    verdict: overall.verdict,
    decidingArms: overall.deciding,
  };
}

function perTx(samples: readonly InstructionSample[]): number[] {
  return usable(samples.map((s) => s.perTx)).values;
}

function summary(values: readonly number[]): ArmSummary {
  return summarise(usable(values), 0);
}

function rangePct(values: readonly number[]): number {
  return (100 * (Math.max(...values) - Math.min(...values))) / median(values);
}

function pct(head: number, base: number): number {
  return 100 * (head / base - 1);
}
