/**
 * Confirm before you accuse: a cell whose verdict is 'regression' after the main rounds is re-measured in a
 * confirmation block (its own rounds, restarted servers, a new arm order) and judged on those rounds alone,
 * by a one-sided question at α: is head worse than base? The block's per-round log-ratios ln(head/base)
 * give the Walsh-average Hodges–Lehmann interval at 1 − 2α, the dual of the one-sided exact signed-rank test
 * at α; the regression is confirmed when that interval lies wholly on the worse side of 0 (its bound on the
 * better side below 0 for higher-is-better metrics). A regression that does not confirm is 'unconfirmed':
 * the decision neither passes nor fails it (outcome pending).
 *
 * No multiplicity adjustment is needed: a confirmed regression needs the main family-wise test to reject
 * and the block too, so the chance of any false confirmed regression stays ≤ the main design's α.
 */
import { METRICS, type MetricName } from '../../results/metrics.js';
import { cellId, type ConfirmationRecord, type RunResult } from '../../results/result-types.js';
import { walshHodgesLehmann } from '../../stats/walsh-hodges-lehmann.js';
import { logRatios, pct } from '../shift-statistics.js';
import { collectCellRuns, type RunValue } from '../cell-runs.js';
import { formatLevel, formatPct, formatPctInterval } from '../format.js';
import type { Better, CellComparison, CellConfirmation, RunComparison } from '../comparison-types.js';
import { PCT_TOLERANCE } from '../defaults.js';

/**
 * Rounds of a confirmation block by default. The exact one-sided test reaches α 0.05 from 5 rounds (1/32);
 * the sixth keeps that possible when a round's run fails, and moves the bound off the extreme Walsh average.
 */
export const DEFAULT_CONFIRM_ROUNDS = 6;

/** A regressed hypothesis to re-measure: head arm, cell and metric. */
type ConfirmationTarget = ConfirmationRecord['cells'][number];

/** The stable (gating) cells whose verdict is 'regression': what a confirmation block re-measures. */
export function confirmationTargets(comparison: RunComparison): ConfirmationTarget[] {
  return comparison.comparisons.flatMap((arm) =>
    [...arm.cells, ...arm.otherMetricCells]
      .filter((c) => c.verdict === 'regression' && c.unstable === undefined)
      .map((c) => ({ head: arm.head, workload: c.workload, clients: c.clients, metric: c.metric })),
  );
}

/**
 * Judges the block's rounds of one cell: `base` and `head` are the values by block round.
 * Pure and deterministic.
 */
export function judgeConfirmation(
  base: ReadonlyMap<number, number>,
  head: ReadonlyMap<number, number>,
  options: { alpha: number; better: Better },
): CellConfirmation {
  const { alpha, better } = options;
  const d = logRatios(base, head).pairs;
  const level = 1 - 2 * alpha;
  const oneSided = formatLevel(1 - alpha);
  if (d.length === 0) {
    return {
      confirmed: false,
      pairs: 0,
      deltaPct: null,
      interval: null,
      alpha,
      message: 'unconfirmed: the confirmation block has no round with a usable run in both arms',
    };
  }
  const hl = walshHodgesLehmann(d, [level]);
  const iv = hl.intervals[0]!;
  const interval = { lowerPct: pct(iv.lower), upperPct: pct(iv.upper), achievedLevel: iv.achievedLevel };
  const deltaPct = pct(hl.shift);
  const reached = iv.achievedLevel >= level - PCT_TOLERANCE;
  const bound = better === 'higher' ? interval.upperPct : interval.lowerPct;
  const worse = better === 'higher' ? bound < 0 : bound > 0;
  const block = `${d.length} confirmation round(s): ${formatPct(deltaPct)}`;
  if (!reached) {
    return {
      confirmed: false,
      pairs: d.length,
      deltaPct,
      interval,
      alpha,
      message: `unconfirmed: ${block}, too few rounds for a one-sided ${oneSided} bound (at most ${formatLevel((1 + iv.achievedLevel) / 2)})`,
    };
  }
  const side = better === 'higher' ? 'below' : 'above';
  return {
    confirmed: worse,
    pairs: d.length,
    deltaPct,
    interval,
    alpha,
    message: worse
      ? `confirmed: ${block}, its one-sided ${oneSided} bound ${formatPct(bound)} lies ${side} 0 (head worse than base)`
      : `unconfirmed: ${block} ${formatPctInterval(interval.lowerPct, interval.upperPct)}, its one-sided ${oneSided} bound ${formatPct(bound)} does not show head worse than base`,
  };
}

/**
 * The comparison with each regressed cell that the document's confirmation block re-measured carrying the
 * block's judgement (`confirmation`); the comparison itself when the document has no block.
 */
export function withConfirmation(
  result: RunResult,
  comparison: RunComparison,
  value: RunValue = 'final',
): RunComparison {
  const record = result.confirmation;
  if (!record || comparison.baseline === null) return comparison;
  const baseline = comparison.baseline;
  const runs = new Map<MetricName, ReturnType<typeof collectCellRuns>>();
  const judge = (head: string, cell: CellComparison): CellComparison => {
    if (cell.verdict !== 'regression') return cell;
    const listed = record.cells.some(
      (t) =>
        t.head === head &&
        t.workload === cell.workload &&
        t.clients === cell.clients &&
        t.metric === cell.metric,
    );
    if (!listed) return cell;
    if (!runs.has(cell.metric)) runs.set(cell.metric, collectCellRuns(record.samples, cell.metric, value));
    const arms = runs.get(cell.metric)!.get(cellId(cell));
    const confirmation = judgeConfirmation(
      arms?.get(baseline)?.byRound ?? new Map(),
      arms?.get(head)?.byRound ?? new Map(),
      { alpha: comparison.alpha, better: METRICS[cell.metric].better },
    );
    return { ...cell, confirmation };
  };
  return {
    ...comparison,
    comparisons: comparison.comparisons.map((arm) => ({
      ...arm,
      cells: arm.cells.map((c) => judge(arm.head, c)),
      otherMetricCells: arm.otherMetricCells.map((c) => judge(arm.head, c)),
    })),
  };
}
