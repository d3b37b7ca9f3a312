/**
 * The gate's own error rates on a runner, as plain values: what one calibration's decisions say (its A/A
 * run's false alarms, its drills caught), and a runner's calibrations summed for a comparison to state.
 * Both count cells (workload@clients): a cell counts as failed when the gate fails any of its gated metrics.
 * The decisions are decide()'s, under fail-on regression for every workload, so a false alarm is a cell the
 * default gate would have failed between two identical arms, and a drill is caught when the default gate
 * fails it (a regression, or a likely regression).
 */
import type { CalibrationRecord, DrillCell, RunnerGateRecord } from '../../results/calibration-record.js';
import type { DecidedCell } from './decision.js';

/** How far back a comparison sums a runner's calibrations, from the newest: older ones say little of today. */
export const GATE_RECORD_WINDOW_DAYS = 90;
const DAY_MS = 86_400_000;

/** The gated cells of a decision and those the gate failed (cell ids, in the decision's order, each once). */
export function failedCells(cells: readonly Pick<DecidedCell, 'id' | 'failsGate'>[]): {
  comparisons: number;
  failed: string[];
} {
  const ids = [...new Set(cells.map((c) => c.id))];
  const failed = new Set(cells.filter((c) => c.failsGate).map((c) => c.id));
  return { comparisons: ids.length, failed: ids.filter((id) => failed.has(id)) };
}

/** The A/A part of a calibration's record, from its decision's cells. */
export function aaRecord(cells: readonly Pick<DecidedCell, 'id' | 'failsGate'>[]): CalibrationRecord['aa'] {
  const { comparisons, failed } = failedCells(cells);
  return { comparisons, falseAlarms: failed.length, cells: failed };
}

/** The drills' part of a calibration's record, from their cells and the workloads that got none. */
export function drillRecord(
  cells: readonly DrillCell[],
  skipped: readonly string[],
): NonNullable<CalibrationRecord['drills']> {
  return {
    comparisons: cells.length,
    caught: cells.filter((c) => c.caught).length,
    cells: [...cells],
    skipped: [...skipped],
  };
}

/** A stored calibration's record and when it ran. */
export interface DatedRecord {
  startedAt: string;
  record: CalibrationRecord;
}

/**
 * The runner's calibrations summed: those started within GATE_RECORD_WINDOW_DAYS of the newest; undefined
 * when there is none. Pure; any order.
 *
 * @example runnerGateRecord([{ startedAt: '2026-11-20T10:00:00Z', record }], 'r1')?.to === '2026-11-20'
 */
export function runnerGateRecord(
  calibrations: readonly DatedRecord[],
  runner: string,
): RunnerGateRecord | undefined {
  const dated = calibrations
    .map((c) => ({ ...c, t: Date.parse(c.startedAt) }))
    .filter((c) => Number.isFinite(c.t))
    .sort((a, b) => b.t - a.t);
  const newest = dated[0];
  if (!newest) return undefined;
  const kept = dated.filter((c) => newest.t - c.t <= GATE_RECORD_WINDOW_DAYS * DAY_MS);
  const sum = (f: (r: CalibrationRecord) => number) => kept.reduce((s, c) => s + f(c.record), 0);
  const drilled = kept.filter((c) => c.record.drills && c.record.drills.comparisons > 0);
  const injected = drilled.flatMap((c) => c.record.drills!.cells.map((d) => d.injectedPct));
  return {
    runner,
    calibrations: kept.length,
    from: day(kept.at(-1)!.t),
    to: day(newest.t),
    aa: { comparisons: sum((r) => r.aa.comparisons), falseAlarms: sum((r) => r.aa.falseAlarms) },
    ...(drilled.length > 0
      ? {
          drills: {
            comparisons: sum((r) => r.drills?.comparisons ?? 0),
            caught: sum((r) => r.drills?.caught ?? 0),
            injectedPct: [...new Set(injected)].sort((a, b) => a - b),
          },
        }
      : {}),
  };
}

function day(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}
