/** A calibration (`pgperf calibrate`, the Action's mode calibrate) as terminal text. */
import type { Calibration } from '../../compare/calibration-types.js';
import type { CalibrationRecord } from '../../results/calibration-record.js';

/**
 * Verdict first, then one line per cell: noise and what the engine said; then, when recorded, what the gate
 * did (false alarms, injected drills caught) and the workloads that got no drill.
 */
export function renderCalibrationText(
  c: Calibration,
  record?: CalibrationRecord,
  skipped: readonly string[] = [],
): string {
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
  return `${[head, '', ...lines, ...recordLines(record, skipped)].join('\n')}\n`;
}

/** What the gate did in the A/A run and the drills: one summary line, then one line per drill cell. */
function recordLines(record: CalibrationRecord | undefined, skipped: readonly string[]): string[] {
  if (!record) return [];
  const aa = `the gate: ${record.aa.falseAlarms} false alarm(s) in ${record.aa.comparisons} A/A comparison(s)`;
  const d = record.drills;
  const lines = [
    '',
    d ? `${aa}; injected drills caught ${d.caught} of ${d.comparisons}` : `${aa}; no injected drill`,
  ];
  for (const cell of d?.cells ?? []) {
    const delta =
      cell.deltaPct === null ? 'n/a' : `${cell.deltaPct >= 0 ? '+' : ''}${cell.deltaPct.toFixed(1)}%`;
    lines.push(
      `  drill ${cell.id}: -${cell.injectedPct}% injected (${cell.rows} rows/tx), measured ${delta}, ${cell.verdict}: ${cell.caught ? 'caught' : 'MISSED'}`,
    );
  }
  for (const why of skipped) lines.push(`  ${why}`);
  return lines;
}
