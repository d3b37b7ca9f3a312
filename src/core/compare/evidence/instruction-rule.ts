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
import { median } from 'simple-statistics';
import {
  DEFAULT_INSTRUCTION_SETTINGS,
  type InstructionSample,
  type InstructionsRecord,
} from '../../results/instructions.js';
import { formatPct } from '../format.js';
import { usable } from '../shift-statistics.js';
import type { Reason, Verdict } from '../comparison-types.js';

export const INSTRUCTION_METRIC = 'instructions' as const;

export interface InstructionJudgement {
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
        'counts-separated',
        `instructions/tx ${d}, beyond ±${thresholdPct}%, every repetition of head ${deltaPct > 0 ? 'above' : 'below'} every one of base (per-arm spread ${s})`,
      );
    }
    return judged(
      'inconclusive',
      'counts-not-steady',
      `instructions/tx ${d}, beyond ±${thresholdPct}%, but the repetitions of the two arms overlap (per-arm spread ${s}): the counts are not steady enough to tell`,
    );
  }
  if (Math.abs(deltaPct) + spreadPct / 2 < thresholdPct) {
    return judged(
      'no-change',
      'counts-inside-threshold',
      `instructions/tx ${d}, inside ±${thresholdPct}% even widened by half the per-arm spread (${s})`,
    );
  }
  return judged(
    'inconclusive',
    'counts-not-steady',
    `instructions/tx ${d}, but with half the per-arm spread (${s}) it reaches ±${thresholdPct}%`,
  );
}

/** At least this many repetitions before an arm can be called bistable. */
const BISTABLE_MIN_REPETITIONS = 3;

/**
 * Bistable counts: an arm's repetitions split into two groups, apart by at least half the threshold and by
 * at least 4 times the spread inside the groups (the sum of the other gaps between sorted values), as when
 * one start of a server lays out a hot structure across a cache line or takes another plan. Such an arm's
 * median is whichever group won the draw, so its cell is reported, not gated. Returns the gap in percent
 * of the median, or null when the arm is not bistable.
 */
export function bistableGapPct(values: readonly number[], thresholdPct: number): number | null {
  if (values.length < BISTABLE_MIN_REPETITIONS) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const gaps = sorted.slice(1).map((v, i) => v - sorted[i]!);
  const widest = Math.max(...gaps);
  const inside = gaps.reduce((s, g) => s + g, 0) - widest;
  const pctOf = (g: number) => (100 * g) / median(sorted);
  return pctOf(widest) >= thresholdPct / 2 && widest >= 4 * inside ? pctOf(widest) : null;
}

/** One cell of an arm pair in the record: its per-transaction counts and the rule's judgement of them. */
export function judgeInstructionCell(
  record: InstructionsRecord,
  cell: { workload: string; clients: number },
  base: string,
  head: string,
): {
  base: number[];
  head: number[];
  thresholdPct: number;
  judged: InstructionJudgement;
  /** The arms whose repetitions are bistable (bistableGapPct), with their gap in percent. */
  bistable: Array<{ arm: string; gapPct: number }>;
} {
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
  const split = [
    { arm: base, values: perTx(b) },
    { arm: head, values: perTx(h) },
  ].flatMap(({ arm, values }) => {
    const gapPct = bistableGapPct(values, thresholdPct);
    return gapPct === null ? [] : [{ arm, gapPct }];
  });
  // A change beyond the threshold by more than the groups' gaps stands whichever group each median drew
  // (a +15% head whose repetitions split 0.55% apart is a regression either way): only a change the draw
  // could have made or hidden is reported, not gated.
  const drawn = split.reduce((sum, x) => sum + x.gapPct, 0);
  const decided =
    (judged.verdict === 'regression' || judged.verdict === 'improvement') && judged.deltaPct !== null;
  const bistable = decided && Math.abs(judged.deltaPct!) - drawn >= thresholdPct ? [] : split;
  return { base: perTx(b), head: perTx(h), thresholdPct, judged, bistable };
}

function perTx(samples: readonly InstructionSample[]): number[] {
  return usable(samples.map((s) => s.perTx)).values;
}

function rangePct(values: readonly number[]): number {
  return (100 * (Math.max(...values) - Math.min(...values))) / median(values);
}

function pct(head: number, base: number): number {
  return 100 * (head / base - 1);
}
