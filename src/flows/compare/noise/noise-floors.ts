/**
 * Noise floors learned from history, before a comparison runs: for each cell and gated timed metric, the
 * floor of this runner's nightly series (src/core/stats/noise-floor.ts) over its newest FLOOR_WINDOW runs,
 * where at least MIN_FLOOR_RUNS exist. The floors are recorded in the run's analysis settings, so the run
 * loop's looks, the report and every later `pgperf compare` of the document judge with the same ones
 * (src/core/compare/analysis/history-threshold.ts applies them).
 *
 * Nightly runs are the one-arm runs a nightly job stores (the measured build of that night); A/B runs and
 * calibrations are left out: their head is a patch, or a copy of base.
 */
import type { MetricName } from '../../../core/results/metrics.js';
import { INSTRUCTION_METRIC } from '../../../core/compare/evidence/instruction-rule.js';
import type { CellKey, NoiseFloor, RunResult } from '../../../core/results/result-types.js';
import { noiseFloorPct } from '../../../core/stats/noise-floor.js';
import { definitionSegments } from '../../../core/history/definition-segments.js';
import {
  isCalibrationRun,
  loadRunsOf,
  runnerSeries,
  runsOf,
  type NoiseStore,
  type RunnerNoiseOptions,
} from './runner-noise.js';

/** The newest nightly runs a floor is learned from (rustc-perf: the last 100 master commits). */
export const FLOOR_WINDOW = 100;
/** Fewest nightly runs for a floor: the quartiles of fewer adjacent changes are too rough (noise-floor-sim). */
export const MIN_FLOOR_RUNS = 12;

/** A cell and the metrics it gates on. */
export interface FloorCell extends CellKey {
  metrics: readonly MetricName[];
}

/** The floors of the cells' timed metrics from a runner's nightly runs (any order, any runner). Pure. */
export function learnNoiseFloors(
  runs: readonly RunResult[],
  runner: string,
  cells: readonly FloorCell[],
  options: RunnerNoiseOptions = {},
): NoiseFloor[] {
  const nightly = runsOf(runs, runner, options).filter((r) => r.arms.length === 1 && !isCalibrationRun(r));
  // Instruction counts have their own rule and threshold (instruction-rule.ts), and no samples in a series.
  const metrics: MetricName[] = [...new Set(cells.flatMap((c) => c.metrics))].filter(
    (m) => m !== INSTRUCTION_METRIC,
  );
  const series = runnerSeries(nightly, runner, metrics);
  return cells.flatMap((cell) =>
    cell.metrics
      .filter((metric) => metrics.includes(metric))
      .flatMap((metric): NoiseFloor[] => {
        const s = series.find(
          (x) =>
            x.key.workload === cell.workload && x.key.clients === cell.clients && x.key.metric === metric,
        );
        // Runs of the workload's newest definition only: an edited workload file measures something else.
        const all = s?.points ?? [];
        const points = all.slice(definitionSegments(all).at(-1)?.start ?? 0).slice(-FLOOR_WINDOW);
        const floor = points.length >= MIN_FLOOR_RUNS ? noiseFloorPct(points.map((p) => p.median)) : null;
        if (!floor) return [];
        return [
          {
            workload: cell.workload,
            clients: cell.clients,
            metric,
            floorPct: floor.floorPct,
            runs: points.length,
            from: points[0]!.date,
            to: points.at(-1)!.date,
          },
        ];
      }),
  );
}

/** learnNoiseFloors on the newest runs of the cells' workloads in a store. */
export async function loadNoiseFloors(
  store: NoiseStore,
  runner: string,
  cells: readonly FloorCell[],
  options: RunnerNoiseOptions = {},
): Promise<NoiseFloor[]> {
  return learnNoiseFloors(await loadRunsOf(store, cells, options), runner, cells, options);
}
