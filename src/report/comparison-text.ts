/**
 * Plain-text terminal rendering of a RunComparison: the verdict first, then per head arm and workload a
 * table (clients | n | base median | head median | delta % [95% CI] | p (adj) | verdict) with the cells'
 * notes and the curve summary, then the warnings.
 */
import { formatDeltaCi, formatP, formatPAdjusted } from '../compare/format.js';
import type {
  ArmComparison,
  CellComparison,
  CurveComparison,
  ReasonCode,
  RunComparison,
} from '../compare/types.js';
import { METRICS } from '../results/metrics.js';
import { curveLine } from './curve-line.js';
import type { StoredBaselineInfo } from '../results/types.js';

/** `baseline`: the stored run the base samples came from (`--baseline stored`), named under the verdict. */
export function renderComparisonText(c: RunComparison, baseline?: StoredBaselineInfo): string {
  const lines: string[] = [
    headline(c),
    ...(baseline ? [describeStoredBaseline(baseline)] : []),
    ...design(c),
  ];
  for (const arm of c.comparisons) lines.push('', ...renderArm(c, arm));
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

function renderArm(c: RunComparison, arm: ArmComparison): string[] {
  const decided = arm.decidingCells.length > 0 ? ` (decided by ${arm.decidingCells.join(', ')})` : '';
  const unstable =
    arm.unstableCells.length > 0 ? `; unstable, not gated: ${arm.unstableCells.join(', ')}` : '';
  const lines = [`head '${arm.head}' vs base '${arm.baseline}': ${arm.verdict}${decided}${unstable}`];
  const all = [...arm.cells, ...arm.otherMetricCells];
  for (const workload of [...new Set(all.map((cell) => cell.workload))]) {
    const inWorkload = all.filter((cell) => cell.workload === workload);
    const threshold = inWorkload[0]?.thresholdPct ?? c.thresholdPct;
    lines.push('', `workload ${workload} (threshold ${threshold}%)`);
    // The comparison's metric first, then every other metric the workload gates on (latency: lower is better).
    for (const metric of c.gatedMetrics) {
      const cells = inWorkload.filter((cell) => cell.metric === metric);
      if (cells.length === 0) continue;
      const info = METRICS[metric];
      if (metric !== c.metric) lines.push(`  ${info.label} (${info.unit}, ${info.better} is better):`);
      const header = [
        'clients',
        'n',
        `base median ${info.label}`,
        `head median ${info.label}`,
        'delta % [95% CI]',
        'p (adj)',
        'verdict',
      ];
      const decimals = info.unit === 'ms' ? 3 : 1;
      lines.push(
        ...table(
          [header, ...cells.map((cell) => row(cell, decimals))],
          [true, true, true, true, false, false, false],
        ),
      );
      for (const cell of cells) {
        for (const note of cell.notes) lines.push(`  clients ${cell.clients}: ${note.message}`);
        if (cell.unstable && metric === c.metric)
          lines.push(`  clients ${cell.clients}: ${cell.unstable.message}`);
      }
    }
    const curve = arm.curves.find((k) => k.workload === workload);
    if (curve) lines.push(renderCurve(curve));
  }
  return lines;
}

function row(cell: CellComparison, decimals: number): string[] {
  const median = (v: number | null) => (v === null ? '-' : v.toFixed(decimals));
  const delta = formatDeltaCi(cell) ?? '-';
  const p = formatPAdjusted(cell) ?? '-';
  const why =
    cell.verdict === 'inconclusive' ? cell.reasons.map((r) => SHORT_REASON[r.code]).filter(Boolean) : [];
  return [
    String(cell.clients),
    `${cell.base.n}/${cell.head.n}`,
    median(cell.base.median),
    median(cell.head.median),
    delta,
    p,
    (why.length > 0 ? `${cell.verdict} (${why.join(', ')})` : cell.verdict) +
      (cell.unstable ? ' [unstable: not gated]' : ''),
  ];
}

const SHORT_REASON: Partial<Record<ReasonCode, string>> = {
  'insufficient-data': 'no data',
  'likely-regression': 'regression likely, too few runs to certify',
  'too-few-runs': 'too few runs',
  'ci-wider-than-threshold': 'CI too wide',
  'significant-below-threshold': 'below threshold',
  'ci-level-not-reached': 'CI level not reached',
};

function renderCurve(k: CurveComparison): string {
  return `  curve: ${curveLine(k, (v) => v.toFixed(1))}`;
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
