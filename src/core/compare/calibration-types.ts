/**
 * An A/A calibration as plain values: per cell, this runner's noise and what the verdict engine said of two
 * identical arms. Computed by src/flows/calibrate/calibrate.ts; rendered by
 * core/report/terminal/calibration-text.ts and core/report/markdown/calibration-markdown.ts.
 */
import type { CellKey } from '../results/result-types.js';
import type { Verdict } from './comparison-types.js';

/** One cell of a calibration. */
export interface CalibrationCell extends CellKey {
  /** cellId: "workload@clients". */
  id: string;
  /** Rounds with a usable run in both arms. */
  rounds: number;
  /** Robust SD of ln(b/a) per round, as a CV in percent (the paired test's noise); null below 3 rounds. */
  pairedCvPct: number | null;
  /** Robust run-to-run CV within an arm (median over the arms), in percent; null below 3 runs. */
  runCvPct: number | null;
  verdict: Verdict;
  /** Called a regression or improvement, or a likely regression, between identical arms. */
  falseAlarm: boolean;
}

/** A calibration: its run, the install measured as both arms, and its cells. */
export interface Calibration {
  runId: string | null;
  binDir: string;
  alpha: number;
  cells: CalibrationCell[];
  /** Cells with a false alarm. */
  falseAlarms: number;
}
