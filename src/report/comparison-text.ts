/**
 * Plain-text terminal rendering of a RunComparison: the verdict first, then per head arm and workload the
 * tables of table-model.ts as aligned columns with the cells' notes and the curve summary, then the
 * warnings.
 */
import { formatP } from '../compare/format.js';
import type { RunComparison } from '../compare/types.js';
import { METRICS } from '../results/metrics.js';
import { curveLine } from './curve-line.js';
import { UNSTABLE_PHRASE } from './reasons.js';
import { columns, PLAIN_CELLS, rowTexts } from './table-cells.js';
import { buildTables, type ArmTables } from './table-model.js';
import type { StoredBaselineInfo } from '../results/types.js';

/** `baseline`: the stored run the base samples came from (`--baseline stored`), named under the verdict. */
export function renderComparisonText(c: RunComparison, baseline?: StoredBaselineInfo): string {
  const lines: string[] = [
    headline(c),
    ...(baseline ? [describeStoredBaseline(baseline)] : []),
    ...design(c),
  ];
  for (const arm of buildTables(c)) lines.push('', ...renderArm(arm));
  if (c.warnings.length > 0) lines.push('', 'warnings:', ...c.warnings.map((w) => `  - ${w}`));
  return `${lines.join('\n')}\n`;
}

function headline(c: RunComparison): string {
  const what = c.gatedMetrics.map((m) => `${METRICS[m].label}, ${METRICS[m].better} is better`).join('; ');
  if (c.comparisons.length === 0) return `verdict: ${c.verdict.toUpperCase()}: nothing to compare (${what})`;
  const arms = c.comparisons.map((a) => `'${a.head}'`).join(', ');
  return `verdict: ${c.verdict.toUpperCase()}: ${arms} vs base '${c.baseline}' (${what})`;
}

function design(c: RunComparison): string[] {
  const families = [...new Set(c.comparisons.map((a) => a.familySize))].join('/');
  const unit = c.gatedMetrics.length > 1 ? 'cell-metric hypotheses' : 'cell(s)';
  const holm = families === '' ? '' : `, Holm over ${families} ${unit} per arm`;
  const lines = [`alpha ${formatP(c.alpha)}${holm}, default threshold ${c.thresholdPct}%`];
  if (c.sequential) {
    const s = c.sequential;
    lines.push(
      `decided at sequential look ${s.look} of ${s.looks} (schedule ${s.schedule.join(', ')} rounds), ` +
        `per-look alpha ${formatP(s.perLookAlpha)}` +
        (s.spending ? `, ${s.spending === 'pocock' ? 'Pocock' : "O'Brien-Fleming"} alpha-spending` : ''),
    );
  }
  return lines;
}

function renderArm(arm: ArmTables): string[] {
  const decided = arm.decidingCells.length > 0 ? ` (decided by ${arm.decidingCells.join(', ')})` : '';
  const unstable =
    arm.unstableCells.length > 0 ? `; ${UNSTABLE_PHRASE}: ${arm.unstableCells.join(', ')}` : '';
  const lines = [`head '${arm.head}' vs base '${arm.baseline}': ${arm.verdict}${decided}${unstable}`];
  for (const w of arm.workloads) {
    lines.push('', `workload ${w.workload} (threshold ${w.thresholdPct}%)`);
    for (const t of w.tables) {
      if (!t.primary) lines.push(`  ${t.label} (${t.unit}, ${t.better} is better):`);
      const header = columns(t);
      lines.push(
        ...table(
          [header.map((col) => col.header), ...t.rows.map((r) => rowTexts(t, r, PLAIN_CELLS))],
          header.map((col) => col.numeric),
        ),
      );
      for (const note of t.notes) lines.push(`  clients ${note.clients}: ${note.message}`);
    }
    if (w.curve) lines.push(`  curve: ${curveLine(w.curve, (v) => v.toFixed(1))}`);
  }
  return lines;
}

/** Aligns columns; `right[i]` right-aligns column i (numbers). */
function table(rows: string[][], right: boolean[]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (right[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * "baseline: stored run 20261123T132303Z-a92636b5, commit 1a2b3c4d5e (master), measured 2.5 day(s) ago;
 * sentinel: steady (...)": which stored samples the base is, how old, and what the drift check found.
 */
export function describeStoredBaseline(b: StoredBaselineInfo): string {
  const commit = b.commit
    ? `commit ${b.commit.slice(0, 10)}${b.ref ? ` (${b.ref})` : ''}`
    : b.ref
      ? `ref ${b.ref}`
      : 'commit not recorded';
  const mismatch = b.fingerprintMismatch?.length
    ? `; fingerprint mismatch allowed (${b.fingerprintMismatch.join(', ')} differ)`
    : '';
  return `baseline: stored run ${b.runId}, ${commit}, measured ${b.ageDays} day(s) ago (unpaired test); ${b.sentinel.reason}${mismatch}`;
}
