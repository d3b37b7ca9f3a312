/**
 * The gate's own error rates on this runner, one line for every report (terminal, PR comment and job
 * summary, mail), when the runner was calibrated: "this runner: 40 A/A comparisons, 1 false alarm; injected
 * -3% regressions caught 18 of 20 (calibrated 2026-10-02 to 2026-11-20, 4 runs)". Nothing without one.
 */
import type { RunComparison } from '../../compare/comparison-types.js';
import type { RunnerGateRecord } from '../../results/calibration-record.js';

export function gateRecordLines(c: Pick<RunComparison, 'gateRecord'>): string[] {
  return c.gateRecord ? [gateRecordText(c.gateRecord)] : [];
}

/** The line itself (see the module comment). */
export function gateRecordText(r: RunnerGateRecord): string {
  const alarms = r.aa.falseAlarms === 0 ? 'no false alarm' : plural(r.aa.falseAlarms, 'false alarm');
  const parts = [`this runner: ${plural(r.aa.comparisons, 'A/A comparison')}, ${alarms}`];
  if (r.drills) {
    const sizes = r.drills.injectedPct.map((p) => `-${round(p)}%`).join('/');
    parts.push(`injected ${sizes} regressions caught ${r.drills.caught} of ${r.drills.comparisons}`);
  } else {
    parts.push('no injected drill');
  }
  const when =
    r.from === r.to ? `calibrated ${r.to}` : `calibrated ${r.from} to ${r.to}, ${r.calibrations} runs`;
  return `${parts.join('; ')} (${when})`;
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/** 3 -> "3", 1.5 -> "1.5", 2.25 -> "2.3". */
function round(p: number): string {
  return String(Math.round(p * 10) / 10);
}
