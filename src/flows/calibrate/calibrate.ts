/**
 * A/A calibration: the same install measured as both arms. What it reports is this runner's noise per cell
 * (the robust spread of ln values the verdict engine sees: per round between the arms, and run to run within
 * an arm) and whether the engine called any cell changed although nothing changed (a false alarm). The
 * noise feeds the planning of adaptive runs (designPower); the false alarms check α on this machine.
 */
import { flowDecision, type GateDecision } from '../../core/compare/decision/flow-decision.js';
import type { FailOn } from '../../core/compare/decision/policy.js';
import { completenessOf } from '../compare/pipeline/decide-run.js';
import { estimateNoise } from '../../core/compare/power.js';
import type { RunComparison } from '../../core/compare/comparison-types.js';
import type { Calibration, CalibrationCell } from '../../core/compare/calibration-types.js';
import type { RunResult } from '../../core/results/result-types.js';
import { cellId } from '../../core/results/result-types.js';

/** The calibration of an A/A run (arms[0] and arms[1] the same install) and its comparison. */
export function calibrationOf(result: RunResult, comparison: RunComparison): Calibration {
  const arm = comparison.comparisons[0];
  const likely = new Set(comparison.likelyRegressions);
  const metric = comparison.metric;
  const cells = result.plan.cells.map((cell): CalibrationCell => {
    const id = cellId(cell);
    const compared = arm?.cells.find((c) => c.id === id);
    const noise = estimateNoise(result, cell, metric);
    const verdict = compared?.verdict ?? 'inconclusive';
    return {
      workload: cell.workload,
      clients: cell.clients,
      id,
      rounds: noise.rounds,
      pairedCvPct: noise.pairedCvPct,
      runCvPct: noise.runCvPct,
      verdict,
      falseAlarm:
        verdict === 'regression' || verdict === 'improvement' || likely.has(`${arm?.head ?? ''}:${id}`),
    };
  });
  return {
    runId: result.runId ?? null,
    binDir: result.arms[0]?.binDir ?? '',
    alpha: comparison.alpha,
    cells,
    falseAlarms: cells.filter((c) => c.falseAlarm).length,
  };
}

/** The warning a false alarm deserves (not a failure: at most α of calibrations show one); none without. */
export function falseAlarmWarning(c: Calibration): string | undefined {
  if (c.falseAlarms === 0) return undefined;
  return `${c.falseAlarms} cell(s) of the same install were called changed: at most alpha ${c.alpha} of calibrations should; if it recurs the runner is not steady enough (pgperf doctor)`;
}

/**
 * What a calibration means to a gate (flowDecision), for `pgperf calibrate` and the Action's mode calibrate
 * alike: an A/A run gates nothing but its own completion. A false alarm is said in the headline and the
 * verdict (the same install called changed), never a failed step: at most α of calibrations show one.
 */
export function calibrationDecision(
  result: Pick<RunResult, 'status' | 'stopReason'>,
  calibration: Calibration,
  failOn: FailOn,
): GateDecision {
  const complete = completenessOf(result);
  const alarms = calibration.cells.filter((c) => c.falseAlarm);
  const cells = `${calibration.cells.length} cell(s)`;
  return flowDecision({
    flow: 'calibrate',
    verdict:
      alarms.length > 0 ? (alarms[0]!.verdict === 'improvement' ? 'improvement' : 'regression') : 'no-change',
    failOn,
    ...(complete.complete
      ? {}
      : { incomplete: `${complete.why ?? 'the run did not complete'}: the calibration is partial` }),
    lead: alarms.length > 0 ? `False alarm in ${alarms.length} of ${cells}` : 'Calibrated',
    detail:
      alarms.length > 0
        ? `the same install was called changed in ${alarms.map((c) => c.id).join(', ')} (at most alpha ${calibration.alpha} of calibrations should)`
        : `no false alarm in ${cells} (A/A, alpha ${calibration.alpha})`,
    deciding: (alarms.length > 0 ? alarms : calibration.cells).map((c) => c.id),
  });
}
