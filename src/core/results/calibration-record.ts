/**
 * What `pgperf calibrate` learned of the gate on this runner, and what a comparison on the runner says of it
 * (docs/statistics.md, "What the gate's errors are on this runner"). Two records, both plain values kept in
 * results documents:
 *
 * - CalibrationRecord, on a stored A/A calibration: how many of its cells the gate would have failed
 *   (false alarms: the same install) and, for its injected drills (the workload plus a known CPU cost in
 *   head), how many cells the gate failed (caught) and how many it let pass (missed);
 * - RunnerGateRecord, on a comparison: those records of the runner's recent calibrations, summed (made by
 *   core/compare/decision/gate-record.ts, rendered by core/report/evidence/gate-record-line.ts).
 */

/** One drill cell: the injected cost and what the gate said of it. */
export interface DrillCell {
  /** cellId of the workload it drilled: "workload@clients". */
  id: string;
  /** The throughput drop the cost was sized to (a positive percent: 3 means -3 %). */
  injectedPct: number;
  /** Rows of `generate_series` summed per transaction in head (the cost). */
  rows: number;
  /** The change the drill measured (head vs base, percent), null when untestable. */
  deltaPct: number | null;
  verdict: string;
  /** The gate failed the cell (a regression, or a likely regression). */
  caught: boolean;
}

/** What one calibration's A/A run and drills say of the gate on its runner. */
export interface CalibrationRecord {
  /** The A/A run: gated cells, and those the gate would have failed (false alarms). */
  aa: { comparisons: number; falseAlarms: number; cells: string[] };
  /** The injected drills (absent when none ran: `--no-drills`, or no workload could be drilled). */
  drills?: {
    comparisons: number;
    caught: number;
    cells: DrillCell[];
    /** Workloads that got no drill, with why ("sysbench: not drilled"). */
    skipped: string[];
  };
}

/** A runner's calibrations summed, as a comparison on the runner states them. */
export interface RunnerGateRecord {
  /** runnerId of the runner. */
  runner: string;
  /** Stored calibrations summed, and the dates (YYYY-MM-DD) of the oldest and the newest. */
  calibrations: number;
  from: string;
  to: string;
  aa: { comparisons: number; falseAlarms: number };
  /** Absent when none of the calibrations ran drills. */
  drills?: {
    comparisons: number;
    caught: number;
    /** The distinct injected drops (positive percents), smallest first. */
    injectedPct: number[];
  };
}
