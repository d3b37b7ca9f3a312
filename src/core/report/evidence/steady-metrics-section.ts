/**
 * "Steady per-transaction costs" in the comment's details: per cell, WAL, buffer and backend-CPU cost of
 * one transaction in base and head (medians over the runs) and the change. Pure: a results document in,
 * markdown lines out; nothing when no run recorded them (older results, snapshots that failed).
 */
import {
  steadySummary,
  type SteadyCellSummary,
  type SteadyMetricRow,
} from '../../compare/evidence/steady-summary.js';
import { METRICS, STEADY_METRICS, type SteadyMetricName } from '../../results/metrics.js';
import type { RunResult } from '../../results/result-types.js';
import { escapeMarkdown } from '../markdown-escape.js';
import { formatBytes } from '../../util/bytes.js';
import { MEMORY_CONTEXTS_LEAD, memoryContextsText } from './memory-contexts-text.js';

/** At most this many table rows; the rest are in the results artifact. */
const MAX_ROWS = 30;

export interface SteadyMetricsSection {
  summary: string;
  body: string[];
}

export function steadyMetricsSection(result: RunResult): SteadyMetricsSection | undefined {
  const cells = steadySummary(result);
  if (cells.length === 0) return undefined;
  const shown = STEADY_METRICS.filter((m) => cells.some((c) => c.metrics.some((r) => r.metric === m)));
  const heads = new Set(cells.map((c) => c.head));
  const headColumn = heads.size > 1;
  const header = [
    'cell',
    ...(headColumn ? ['head'] : []),
    ...shown.map((m) => `${METRICS[m].label} (${METRICS[m].unit})`),
  ];
  const rows = cells
    .slice(0, MAX_ROWS)
    .map((c) => [
      escapeMarkdown(c.cell, 80),
      ...(headColumn ? [escapeMarkdown(c.head, 40)] : []),
      ...shown.map((m) => cellText(c, m)),
    ]);
  const body = [
    `Base → head, medians over the runs; what one transaction cost the server (pg_stat_wal, pg_stat_database, backend CPU from /proc), and what a backend held in private memory during a run (smaps_rollup Anonymous: the peak, and the median per backend). These do not gate unless a workload lists them in \`metrics\` (wal-bytes, wal-records, wal-fpi, buffer-hits, buffer-reads, backend-cpu, memory-peak, memory-median, temp-bytes, temp-files) or \`--metric\` names one; memory and temp bytes also gate where they moved beyond their floors (docs/decision.md).`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => (i === 0 || (headColumn && i === 1) ? ' --- ' : ' ---: ')).join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
  if (cells.length > MAX_ROWS)
    body.push('', `_… and ${cells.length - MAX_ROWS} more cells in the results artifact._`);
  // Where a cell's backend memory moved: its largest backend's memory contexts, base's beside head's.
  const contexts = cells.filter((c) => c.memoryContexts);
  if (contexts.length > 0) {
    body.push(
      '',
      ...contexts.map(
        (c) =>
          `- ${escapeMarkdown(c.cell, 80)}${headColumn ? ` (${escapeMarkdown(c.head, 40)})` : ''}: ${MEMORY_CONTEXTS_LEAD}: ${escapeMarkdown(memoryContextsText(c.memoryContexts!), 1000)}`,
      ),
    );
  }
  return { summary: 'Steady per-transaction costs (WAL, buffers, backend CPU, memory)', body };
}

/**
 * "12.1 → 12.3 (+1.7%)": one cell's base and head medians of a metric and the change; '–' without. With
 * `unit`, after the values: "738 → 376 µs (-49.1%)".
 */
export function cellText(c: SteadyCellSummary, metric: SteadyMetricName, unit?: string): string {
  const row: SteadyMetricRow | undefined = c.metrics.find((r) => r.metric === metric);
  if (!row) return '–';
  const delta = row.deltaPct === null ? '' : ` (${row.deltaPct >= 0 ? '+' : ''}${row.deltaPct.toFixed(1)}%)`;
  if (IN_BYTES.has(metric)) return bytesText(row);
  return `${num(row.base)} → ${num(row.head)}${unit ? ` ${unit}` : ''}${delta}`;
}

/** A backend's memory reads in MB, not in 7-digit byte counts: the change a hacker looks for is in MB. */
const IN_BYTES = new Set<SteadyMetricName>(['backendMemoryPeakBytes', 'backendMemoryMedianBytes']);

/** "1.87 MB → 5.84 MB (+3.98 MB, +213.0%)". */
function bytesText(row: SteadyMetricRow): string {
  if (row.base === null || row.head === null) {
    return `${row.base === null ? '–' : formatBytes(row.base)} → ${row.head === null ? '–' : formatBytes(row.head)}`;
  }
  const d = row.head - row.base;
  const pct = row.deltaPct === null ? '' : `, ${row.deltaPct >= 0 ? '+' : ''}${row.deltaPct.toFixed(1)}%`;
  return `${formatBytes(row.base)} → ${formatBytes(row.head)} (${d >= 0 ? '+' : '-'}${formatBytes(Math.abs(d))}${pct})`;
}

/** 3 significant digits below 100, whole numbers with thousands separators above. */
function num(v: number | null): string {
  if (v === null) return '–';
  if (Math.abs(v) >= 100) return Math.round(v).toLocaleString('en-US');
  return Number(v.toPrecision(3)).toString();
}
