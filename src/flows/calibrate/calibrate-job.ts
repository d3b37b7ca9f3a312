/**
 * The calibration job, once for `pgperf calibrate` and the Action's `mode: calibrate`: one install measured
 * as both arms (A/A) in random order, without data checksums, through the adapter's measurement (the CLI's
 * executeRun with its Ctrl-C handling, the Action's pipeline in a log group), saved to the store when the
 * adapter gave one; then its calibration (calibrate.ts), written to calibration.json when asked, and what it
 * means to the gate. The adapters print or publish the calibration and gate on the decision.
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
}

export interface CalibrateDeps {
  /** Measures the run (and saves it to the adapter's store, if any). */
  measure(request: Omit<PipelineRequest, 'runDir'>): Promise<PipelineOutcome>;
}

export interface CalibrateOutcome {
  run: PipelineOutcome;
  calibration: Calibration;
  /** An A/A run gates nothing but its own completion (calibrationDecision). */
  decision: GateDecision;
  /** Where calibration.json was written, when asked. */
  calibrationFile?: string;
}

/** Measures the A/A run and calibrates on it (see the module comment). */
export async function runCalibration(
  options: CalibrateOptions,
  deps: CalibrateDeps,
): Promise<CalibrateOutcome> {
  const { binDir, analysis, failOn, calibrationDir, ...run } = options;
  const measured = await deps.measure({
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
  });
  const calibration = calibrationOf(measured.result, measured.comparison);
  const calibrationFile = calibrationDir ? path.join(calibrationDir, CALIBRATION_FILE) : undefined;
  if (calibrationFile) await writeFile(calibrationFile, `${JSON.stringify(calibration, null, 2)}\n`);
  return {
    run: measured,
    calibration,
    decision: calibrationDecision(measured.result, calibration, failOn),
    ...(calibrationFile ? { calibrationFile } : {}),
  };
}
