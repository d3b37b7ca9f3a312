/**
 * How big a calibration's injected drill is (docs/statistics.md, "What the gate's errors are on this
 * runner"). The drill adds CPU work to every transaction of head: summing N rows of generate_series. Its
 * size N is chosen from a short probe: both arms run the drill's script, head summing PROBE_ROWS rows per
 * transaction, and the ratio q of head's throughput to base's says what a row costs against the
 * transaction. With a transaction's time t and a row's cost c, q = t / (t + R·c); a drop of d needs
 * N·c = t · d / (1 − d), so N = R · (d / (1 − d)) · (q / (1 − q)). CPU work of a fixed size per
 * transaction is linear in N, so one probe suffices; what the drill then measured is recorded beside it.
 */
import type { RunResult } from '../../core/results/result-types.js';

/** Rows head sums per transaction in the probe: about 0.5 ms of CPU, a drop a short probe resolves. */
export const PROBE_ROWS = 20_000;
/** The probe's rounds, and its longest run (seconds): it sizes the drill, it decides nothing. */
export const PROBE_ROUNDS = 2;
export const PROBE_DURATION_S = 5;
/** A probe that slowed head by less than this (percent) cannot size a drill: the transaction is too long. */
export const MIN_PROBE_DROP_PCT = 5;
/**
 * The drill's drop as a multiple of the threshold: 1.5 x 2% = -3% by default. At the threshold itself a
 * regression's estimate falls short of it half the time (the verdict needs the change to reach δ), so a
 * drill there would measure the rule, not the runner; 1.5x is a regression the gate is meant to catch.
 */
export const DRILL_SIZE_FACTOR = 1.5;

/** The throughput drop (a positive percent) a workload's drill is sized to, from its threshold. */
export function drillTargetPct(thresholdPct: number): number {
  return DRILL_SIZE_FACTOR * thresholdPct;
}

/**
 * The rows per transaction that drop throughput by `targetPct`, from the probe's throughput ratio q (head
 * with `probeRows` rows over base); a reason instead when the probe cannot size it.
 *
 * @example drillRows({ probeRows: 20000, ratio: 0.5, targetPct: 3 }) // { rows: 619 }: 20000 · (0.03/0.97) · 1
 */
export function drillRows(probe: {
  probeRows: number;
  ratio: number;
  targetPct: number;
}): { rows: number } | { problem: string } {
  const { probeRows, ratio: q, targetPct } = probe;
  const dropPct = 100 * (1 - q);
  if (!Number.isFinite(q) || q <= 0 || dropPct < MIN_PROBE_DROP_PCT) {
    return {
      problem: `summing ${probeRows} rows per transaction changed throughput by ${Number.isFinite(dropPct) ? `-${dropPct.toFixed(1)}%` : 'an unknown amount'}, less than the ${MIN_PROBE_DROP_PCT}% a drill can be sized from (the transaction is long against the probe)`,
    };
  }
  const d = targetPct / 100;
  return { rows: Math.max(1, Math.round(probeRows * (d / (1 - d)) * (q / (1 - q)))) };
}

/**
 * Per workload, the probe's throughput ratio: per cell the median TPS of `head` over that of `base` (the
 * usable runs), then the median over the workload's cells. Workloads without a usable run in both arms
 * are absent.
 */
export function probeRatios(
  result: Pick<RunResult, 'samples'>,
  base: string,
  head: string,
): Map<string, number> {
  const tps = new Map<string, { base: number[]; head: number[]; workload: string }>();
  for (const s of result.samples) {
    const v = s.metrics.tps;
    if (s.status !== 'ok' || v === undefined || !(v > 0) || (s.arm !== base && s.arm !== head)) continue;
    const key = `${s.workload}@${s.clients}`;
    const cell = tps.get(key) ?? { base: [], head: [], workload: s.workload };
    cell[s.arm === base ? 'base' : 'head'].push(v);
    tps.set(key, cell);
  }
  const perWorkload = new Map<string, number[]>();
  for (const cell of tps.values()) {
    if (cell.base.length === 0 || cell.head.length === 0) continue;
    const ratios = perWorkload.get(cell.workload) ?? [];
    ratios.push(median(cell.head) / median(cell.base));
    perWorkload.set(cell.workload, ratios);
  }
  return new Map([...perWorkload].map(([w, ratios]) => [w, median(ratios)]));
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
