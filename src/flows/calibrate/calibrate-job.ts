/**
 * The calibration job, once for `pgperf calibrate` and the Action's `mode: calibrate`: one install measured
 * as both arms (A/A) in random order, without data checksums, through the adapter's measurement (the CLI's
 * executeRun with its Ctrl-C handling, the Action's pipeline in a log group), saved to the store when the
 * adapter gave one; then, unless switched off, the injected drills (drills.ts: the workloads with a known
 * CPU cost in head, judged by the same gate). What the gate did in both (false alarms, drills caught) is
 * recorded on the A/A run (calibrationRecord), which is saved again to the store, so that every later
 * comparison on this runner states it. Then its calibration (calibrate.ts), written to calibration.json when
 * asked, and what it means to the gate. The adapters print or publish the calibration and gate on the decision.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { GateDecision } from '../../core/compare/decision/flow-decision.js';
import type { FailOn } from '../../core/compare/decision/policy.js';
import type { AnalysisSettings } from '../../core/results/result-types.js';
import { resolveAnalysis } from '../../core/compare/analysis/recorded-analysis.js';
import type { PipelineOutcome, PipelineRequest } from '../compare/pipeline/pipeline.js';
import type { Calibration } from '../../core/compare/calibration-types.js';
import { calibrationDecision, calibrationOf } from './calibrate.js';
import type { CalibrationRecord } from '../../core/results/calibration-record.js';
import type { RunResult } from '../../core/results/result-types.js';
import { decide } from '../../core/compare/decision/decision.js';
import { aaRecord } from '../../core/compare/decision/gate-record.js';
import { completenessOf } from '../compare/pipeline/decide-run.js';
import { writeResults } from '../../store/write-results.js';
import { runDrills, type DrillOutcome, type MeasureOptions } from './drills.js';

export type { MeasureOptions } from './drills.js';

export const CALIBRATION_FILE = 'calibration.json';

export interface CalibrateOptions extends Pick<
  PipelineRequest,
  'workloads' | 'rounds' | 'durationS' | 'seed' | 'runAs' | 'tmpDir' | 'planCheck' | 'source'
> {
  /** The install measured as both arms. */
  binDir: string;
  /** The analysis settings given (the rest default). */
  analysis: Partial<AnalysisSettings>;
  failOn: FailOn;
  /** The directory calibration.json is written to; absent: it is not written. */
  calibrationDir?: string;
  /** Run the injected drills beside the A/A run (default true). */
  drills?: boolean;
}

export interface CalibrateDeps {
  /** Measures a run (and saves it to the adapter's store, if any, when asked). */
  measure(request: Omit<PipelineRequest, 'runDir'>, options: MeasureOptions): Promise<PipelineOutcome>;
  /** Saves the A/A run again with its record (the store replaces it by run id); absent without a store. */
  keep?(result: RunResult): Promise<void>;
}

export interface CalibrateOutcome {
  run: PipelineOutcome;
  calibration: Calibration;
  /** An A/A run gates nothing but its own completion (calibrationDecision). */
  decision: GateDecision;
  /** Where calibration.json was written, when asked. */
  calibrationFile?: string;
  /** What the gate did in the A/A run and the drills; absent when the A/A run did not complete. */
  record?: CalibrationRecord;
  /** The drills as run (absent when switched off or the A/A run did not complete). */
  drills?: DrillOutcome;
}

/** Measures the A/A run and calibrates on it (see the module comment). */
export async function runCalibration(
  options: CalibrateOptions,
  deps: CalibrateDeps,
): Promise<CalibrateOutcome> {
  const { binDir, analysis, failOn, calibrationDir, drills: drilling = true, ...run } = options;
  const measured = await deps.measure(
    {
      arms: {
        kind: 'installed',
        arms: [
          { label: 'a', binDir, settings: {} },
          { label: 'b', binDir, settings: {} },
        ],
      },
      ...run,
      analysis: resolveAnalysis(analysis),
      order: 'random',
      dataChecksums: false,
    },
    { name: 'calibration', store: true },
  );
  const calibration = calibrationOf(measured.result, measured.comparison);
  const complete = completenessOf(measured.result);
  let record: CalibrationRecord | undefined;
  let drills: DrillOutcome | undefined;
  if (complete.complete) {
    // The default gate's view of the A/A cells: a cell it would fail is a false alarm.
    const aa = decide(measured.comparison, { failOn: 'regression', workloads: {} }, complete);
    drills = drilling ? await runDrills({ ...run, binDir, analysis }, deps) : undefined;
    record = { aa: aaRecord(aa.cells), ...(drills?.record ? { drills: drills.record } : {}) };
    const kept = { ...measured.result, calibrationRecord: record };
    await writeResults(measured.resultsFile, kept);
    measured.result = kept;
    if (measured.archived) await deps.keep?.(kept);
  }
  const calibrationFile = calibrationDir ? path.join(calibrationDir, CALIBRATION_FILE) : undefined;
  if (calibrationFile) await writeFile(calibrationFile, `${JSON.stringify(calibration, null, 2)}\n`);
  return {
    run: measured,
    calibration,
    decision: calibrationDecision(measured.result, calibration, failOn),
    ...(calibrationFile ? { calibrationFile } : {}),
    ...(record ? { record } : {}),
    ...(drills ? { drills } : {}),
  };
}
