/**
 * The runner's gate record for a comparison: its stored calibrations (`pgperf calibrate` with the store)
 * that recorded what the gate did (calibrationRecord: false alarms, drills caught), summed
 * (core/compare/decision/gate-record.ts). Found as the runner's noise is (runner-noise.ts): the newest
 * stored runs of the comparison's workloads, those of this runner (runnerId) that are A/A calibrations.
 */
import type { CellKey, RunResult } from '../../../core/results/result-types.js';
import type { RunnerGateRecord } from '../../../core/results/calibration-record.js';
import { runnerGateRecord } from '../../../core/compare/decision/gate-record.js';
import {
  isCalibrationRun,
  loadRunsOf,
  runsOf,
  type NoiseStore,
  type RunnerNoiseOptions,
} from './runner-noise.js';

/** The runner's record from stored runs (any order, any runner); undefined when no calibration recorded one. Pure. */
export function gateRecordOf(
  runs: readonly RunResult[],
  runner: string,
  options: RunnerNoiseOptions = {},
): RunnerGateRecord | undefined {
  const calibrations = runsOf(runs, runner, options).flatMap((r) =>
    isCalibrationRun(r) && r.calibrationRecord
      ? [{ startedAt: r.startedAt, record: r.calibrationRecord }]
      : [],
  );
  return runnerGateRecord(calibrations, runner);
}

/** The runner's record from a store: the newest runs of the cells' workloads, then gateRecordOf. */
export async function loadGateRecord(
  store: NoiseStore,
  runner: string,
  cells: readonly CellKey[],
  options: RunnerNoiseOptions = {},
): Promise<RunnerGateRecord | undefined> {
  return gateRecordOf(await loadRunsOf(store, cells, options), runner, options);
}
