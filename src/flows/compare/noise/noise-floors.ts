/**
 * Noise floors learned from history, before a comparison runs: for each cell and gated timed metric, the
 * floor of this runner's nightly series (src/core/stats/noise-floor.ts) over its newest FLOOR_WINDOW runs,
 * where at least MIN_FLOOR_RUNS exist. The floors are recorded in the run's analysis settings, so the run
 * loop's looks, the report and every later `pgperf compare` of the document judge with the same ones
 * (src/core/compare/analysis/history-threshold.ts applies them).
 *
 * Nightly runs are the one-arm runs a nightly job stores (the measured build of that night); A/B runs,
 * calibrations and runner canaries are left out: their head is a patch, a copy of base, or a frozen build.
 * A cell's floor comes only from nightly runs of the same runner (runnerId), of the branch the comparison's
 * base comes from (the nightly's `source.head.ref`; runs that name none only for a comparison that names
 * none) and of the same workload definition (workloadDefinitionHash): a workload whose script, duration or
 * settings changed under the same name starts a history of its own. Each floor records which runs it came
 * from (the first and last run ids, the branch, the definition), and every report says so.
 */
import type { MetricName } from '../../../core/results/metrics.js';
import { INSTRUCTION_METRIC } from '../../../core/compare/evidence/instruction-rule.js';
import type { CellKey, NoiseFloor, RunResult } from '../../../core/results/result-types.js';
import { workloadDefinitionHash } from '../../../core/results/workload-definition.js';
import { noiseFloorPct } from '../../../core/stats/noise-floor.js';
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

/** A cell, the metrics it gates on and the hash of its workload's definition as it will run. */
export interface FloorCell extends CellKey {
  metrics: readonly MetricName[];
  /** workloadDefinitionHash of the workload as this run runs it (its duration override applied). */
  definition: string;
}

/** Whose history: the runner's nightly runs of one branch. */
export interface FloorSource extends RunnerNoiseOptions {
  /** The branch the comparison's base comes from; null when it names none (then runs that name none). */
  branch: string | null;
}

/** The branch a stored nightly run measured: its head's ref, null when it names none. */
export function nightlyBranch(run: RunResult): string | null {
  return run.source?.head?.ref ?? null;
}

/**
 * The floors of the cells' timed metrics from a runner's nightly runs of `source.branch` whose definition
 * of the cell's workload is the cell's (any order, any runner). Pure.
 */
export function learnNoiseFloors(
  runs: readonly RunResult[],
  runner: string,
  cells: readonly FloorCell[],
  source: FloorSource,
): NoiseFloor[] {
  const nightly = runsOf(runs, runner, source).filter(
    (r) =>
      r.arms.length === 1 &&
      !isCalibrationRun(r) &&
      r.source?.canary !== true &&
      nightlyBranch(r) === source.branch,
  );
  // Instruction counts have their own rule and threshold (instruction-rule.ts), and no samples in a series.
  const metrics: MetricName[] = [...new Set(cells.flatMap((c) => c.metrics))].filter(
    (m) => m !== INSTRUCTION_METRIC,
  );
  // One history per workload definition: the runs that ran this definition of that workload.
  const seriesOf = new Map<string, ReturnType<typeof runnerSeries>>();
  const historyOf = (cell: FloorCell) => {
    const key = `${cell.definition}/${cell.workload}`;
    let series = seriesOf.get(key);
    if (!series) {
      const same = nightly.filter(
        (r) =>
          Object.hasOwn(r.workloads, cell.workload) &&
          workloadDefinitionHash(r.workloads[cell.workload]) === cell.definition,
      );
      series = runnerSeries(same, runner, metrics).filter((x) => x.key.workload === cell.workload);
      seriesOf.set(key, series);
    }
    return series;
  };
  return cells.flatMap((cell) =>
    cell.metrics
      .filter((metric) => metrics.includes(metric))
      .flatMap((metric): NoiseFloor[] => {
        const s = historyOf(cell).find((x) => x.key.clients === cell.clients && x.key.metric === metric);
        const points = (s?.points ?? []).slice(-FLOOR_WINDOW);
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
            firstRunId: points[0]!.runId,
            lastRunId: points.at(-1)!.runId,
            branch: source.branch,
            definition: cell.definition,
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
  source: FloorSource,
): Promise<NoiseFloor[]> {
  return learnNoiseFloors(await loadRunsOf(store, cells, source), runner, cells, source);
}
