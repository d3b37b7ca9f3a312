/** A calibration (`pgperf calibrate`, the Action's mode calibrate) as terminal text. */
import type { Calibration } from '../../compare/calibration-types.js';

/** Verdict first, then one line per cell: noise and what the engine said. */
export function renderCalibrationText(c: Calibration): string {
  const pct = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(1)}%`);
  const head =
    c.falseAlarms === 0
      ? `calibration: no false alarm in ${c.cells.length} cell(s) (A/A, ${c.binDir}, alpha ${c.alpha})`
      : `calibration: FALSE ALARM in ${c.falseAlarms} of ${c.cells.length} cell(s) (A/A, ${c.binDir}, alpha ${c.alpha}): ` +
        `the same install was called changed`;
  const rows = [
    ['cell', 'rounds', 'paired noise (CV of ln b/a)', 'run-to-run CV', 'verdict'],
    ...c.cells.map((x) => [
      x.id,
      String(x.rounds),
      pct(x.pairedCvPct),
      pct(x.runCvPct),
      x.falseAlarm ? `${x.verdict} (FALSE ALARM)` : x.verdict,
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) =>
    r
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
  return `${[head, '', ...lines].join('\n')}\n`;
}
