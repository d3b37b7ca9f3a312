/**
 * The table model (table-model.ts) as an HTML fragment, for pages that show a comparison (the history
 * site): per head arm a heading, per workload a heading with its verdict, one <table> per gated metric
 * (numbers in `class="num"` cells, each row classed by its verdict), the cells' notes and the curve line.
 * Every text is escaped (workload names, labels and notes come from users and the machine). No styles:
 * the page brings them. Pure.
 */
import { curveLine } from './curve-line.js';
import { escapeHtml } from './html-escape.js';
import { clientsLabel, columns, groupedNumber, RICH_CELLS, rowTexts } from './table-cells.js';
import type { ArmTables, MetricTable, WorkloadTables } from './table-model.js';
import { VERDICT_DISPLAY } from './verdict-display.js';

/** Every head arm's tables; `level` is the heading level of the arms (workloads get the next one). */
export function renderTablesHtml(tables: readonly ArmTables[], level: 1 | 2 | 3 | 4 | 5 = 2): string {
  const lines: string[] = [];
  for (const arm of tables) {
    const v = VERDICT_DISPLAY[arm.verdict];
    lines.push(
      `<h${level}>${v.icon} ${escapeHtml(arm.head)} vs ${escapeHtml(arm.baseline)}: ${v.word}</h${level}>`,
    );
    for (const w of arm.workloads) lines.push(...workloadHtml(w, level + 1));
    lines.push(...arm.legend.map((l) => `<p class="legend">${escapeHtml(l)}</p>`));
  }
  return `${lines.join('\n')}\n`;
}

function workloadHtml(w: WorkloadTables, level: number): string[] {
  const v = VERDICT_DISPLAY[w.verdict];
  const lines = [
    `<h${level}>${v.icon} ${escapeHtml(w.workload)}: ${v.word} (threshold ±${w.thresholdPct}%)</h${level}>`,
  ];
  for (const t of w.tables) lines.push(...tableHtml(t));
  const notes = w.tables.flatMap((t) => t.notes);
  if (notes.length > 0) {
    lines.push(
      '<ul class="notes">',
      ...notes.map((n) => `<li>${escapeHtml(clientsLabel(n.clients))}: ${escapeHtml(n.message)}</li>`),
      '</ul>',
    );
  }
  if (w.curve)
    lines.push(
      `<p class="curve">curve: ${escapeHtml(curveLine(w.curve, (v) => groupedNumber(v, 0), '–'))}</p>`,
    );
  return lines;
}

function tableHtml(t: MetricTable): string[] {
  const header = columns(t);
  const cls = (numeric: boolean) => (numeric ? ' class="num"' : '');
  const caption = `${t.label} (${t.unit}, ${t.better} is better)`;
  return [
    `<table class="cells" data-metric="${escapeHtml(t.metric)}">`,
    `<caption>${escapeHtml(caption)}</caption>`,
    `<thead><tr>${header.map((col) => `<th scope="col"${cls(col.numeric)}>${escapeHtml(col.header)}</th>`).join('')}</tr></thead>`,
    '<tbody>',
    ...t.rows.map((row) => {
      const cells = rowTexts(t, row, RICH_CELLS);
      const tds = cells.map((text, i) => `<td${cls(header[i]!.numeric)}>${escapeHtml(text)}</td>`);
      const classes = [`verdict-${row.verdict}`, ...(row.unstable ? ['unstable'] : [])].join(' ');
      return `<tr class="${classes}" data-cell="${escapeHtml(row.id)}">${tds.join('')}</tr>`;
    }),
    '</tbody>',
    '</table>',
  ];
}
