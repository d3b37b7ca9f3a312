import type { SeriesChangePoint } from './history-analysis.js';
import type { SeriesPoint } from './series.js';

/**
 * The medians of a series from `start` on with a drift's ramp taken out, for reading a runner's noise from
 * its history (src/flows/compare/noise/runner-noise.ts): a drift is a change of level, not noise, and the
 * runs since it began hold the ramp. Each median is divided by the drift's fitted level at its run (the
 * level before it up to its start, geometric interpolation between before and after over its runs, the
 * level after from its end on), so what is left is the run's deviation around 1. A change point that is not
 * a drift (a step: the runs since it are at one level) leaves the medians as they are.
 *
 * Complexity O(n). Throws: never.
 *
 * @example detrendedMedians(points, 60, drift) // ≈ [1.002, 0.997, …] where the medians fell 20% over 40 runs
 */
export function detrendedMedians(
  points: readonly SeriesPoint[],
  start: number,
  cp: Pick<SeriesChangePoint, 'index' | 'before' | 'after' | 'drift'> | undefined,
): number[] {
  const medians = points.slice(start).map((p) => p.median);
  if (cp?.drift === undefined) return medians;
  const from = cp.index - 1;
  const end = cp.drift.endIndex;
  const total = Math.log(cp.after / cp.before);
  return medians.map((m, k) => {
    const i = start + k;
    const share = i <= from ? 0 : i >= end ? 1 : (i - from) / (end - from);
    return m / (cp.before * Math.exp(share * total));
  });
}
