/**
 * Whether two measured points of an attribution differ, per workload: the instruction rule of the compare
 * pipeline (compare/evidence/instruction-rule.ts) with the attribution's floor as its threshold, so a
 * commit is named by the same rule that gates a pull request. Δ is taken between the points' medians, so
 * the changes of consecutive ranges add up exactly to the change from one end to the other.
 */
import { median } from 'simple-statistics';
import { judgeInstructions } from '../compare/evidence/instruction-rule.js';

/** Instructions per transaction of one commit, per workload: every repetition's count. */
export type PointCounts = Readonly<Record<string, readonly number[]>>;

/**
 * - `changed`: beyond the floor, every repetition of one point above (or below) every one of the other;
 * - `quiet`: inside the floor even widened by half the spread (or the same compiled code);
 * - `unsteady`: the rule cannot tell (the repetitions overlap, or their spread reaches the floor).
 */
export type PairCall = 'changed' | 'quiet' | 'unsteady';

export interface PairJudgement {
  call: PairCall;
  /** Median of `to` minus median of `from`, instructions per transaction. */
  deltaPerTx: number;
  /** The same in percent of `from`'s median. */
  deltaPct: number;
  /** Whether |deltaPct| reaches the floor (a range that moved this much is split, steady or not). */
  moved: boolean;
}

/** The median count of one workload at one point. */
export function perTxOf(counts: PointCounts, workload: string): number {
  const values = counts[workload];
  if (!values || values.length === 0) throw new RangeError(`no counts of workload ${workload}`);
  return median([...values]);
}

/**
 * One workload's judgement of the range from `from` to `to`. `sameCode`: the two points run the same
 * compiled code, so they cannot differ whatever their counts (one was not even counted).
 */
export function judgePair(
  from: PointCounts,
  to: PointCounts,
  workload: string,
  floorPct: number,
  sameCode = false,
): PairJudgement {
  const a = perTxOf(from, workload);
  const b = perTxOf(to, workload);
  const deltaPerTx = b - a;
  const deltaPct = (100 * deltaPerTx) / a;
  if (sameCode) return { call: 'quiet', deltaPerTx: 0, deltaPct: 0, moved: false };
  const verdict = judgeInstructions(from[workload]!, to[workload]!, floorPct).verdict;
  const call: PairCall =
    verdict === 'regression' || verdict === 'improvement'
      ? 'changed'
      : verdict === 'no-change'
        ? 'quiet'
        : 'unsteady';
  return { call, deltaPerTx, deltaPct, moved: Math.abs(deltaPct) >= floorPct };
}
