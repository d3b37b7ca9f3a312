/**
 * The tables of the markdown report: per head arm (a heading when there are several) and workload a
 * heading with the workload's verdict, the table-model.ts tables (the comparison's metric first, then each
 * other gated metric under its own caption), the cells' notes and a mermaid scaling chart.
 */
import type { CurveComparison } from '../../compare/comparison-types.js';
import { curveLine } from '../evidence/curve-line.js';
import { armName, type ReportContext } from './markdown-context.js';
import { escapeMarkdown } from '../markdown-escape.js';
import type { TrimId } from './markdown-size.js';
import { CHART_LINES, renderScalingChart } from './mermaid-chart.js';
import { clientsLabel, columns, groupedNumber, RICH_CELLS, rowTexts } from '../table-cells.js';
import type { ArmTables, MetricTable } from '../table-model.js';
import { VERDICT_DISPLAY } from '../verdict-display.js';

/** Every head arm's blocks; `trims` may leave out the notes and the charts (markdown-size.ts). */
export function tableBlocks(
  ctx: ReportContext,
  tables: readonly ArmTables[],
  trims: ReadonlySet<TrimId>,
): string[] {
  return tables.flatMap((arm) => armBlocks(ctx, arm, trims));
}

function armBlocks(ctx: ReportContext, arm: ArmTables, trims: ReadonlySet<TrimId>): string[] {
  const blocks: string[] = [];
  if (ctx.c.comparisons.length > 1) {
    const v = VERDICT_DISPLAY[arm.verdict];
    blocks.push(`## ${v.icon} ${escapeMarkdown(arm.head)} vs ${escapeMarkdown(arm.baseline)}: ${v.word}`);
  }
  for (const w of arm.workloads) {
    const v = VERDICT_DISPLAY[w.verdict];
    blocks.push(`### ${v.icon} ${escapeMarkdown(w.workload)}: ${v.word} (threshold ±${w.thresholdPct}%)`);
    for (const t of w.tables) {
      // The latency rows of a workload that gates on them (`metrics: [tps, p99]`) under their own caption.
      if (!t.primary) {
        const rise = t.better === 'lower' ? ': a rise is a regression' : '';
        blocks.push(`**${t.label}** (${t.unit}, ${t.better} is better${rise})`);
      }
      blocks.push(table(t));
    }
    if (!trims.has('notes')) {
      const notes = w.tables.flatMap((t) =>
        t.notes.map((n) => `- ${clientsLabel(n.clients)}: ${escapeMarkdown(n.message, 500)}`),
      );
      if (notes.length > 0) blocks.push(notes.join('\n'));
    }
    if (w.curve && !trims.has('charts')) blocks.push(...chartBlocks(arm, w.curve));
  }
  if (arm.legend.length > 0) blocks.push(arm.legend.map((l) => `_${escapeMarkdown(l, 500)}_`).join('\n'));
  return blocks;
}

function table(t: MetricTable): string {
  const header = columns(t);
  return [
    `| ${header.map((col) => col.header).join(' | ')} |`,
    `|${header.map((col) => (col.numeric ? '---:' : ':---')).join('|')}|`,
    ...t.rows.map((row) => `| ${rowTexts(t, row, RICH_CELLS).join(' | ')} |`),
  ].join('\n');
}

/** The legend sentence and the chart, when base and head share at least two client counts. */
function chartBlocks(arm: ArmTables, curve: CurveComparison): string[] {
  const headByClients = new Map(curve.head.points.map((p) => [p.clients, p.medianTps]));
  const points = curve.base.points.flatMap((p) => {
    const head = headByClients.get(p.clients);
    return head === undefined ? [] : [{ clients: p.clients, base: p.medianTps, head }];
  });
  if (points.length < 2) return [];
  const [baseLine, headLine] = CHART_LINES;
  const legend =
    `Median TPS by client count (the chart has no legend): the **${baseLine.colour}** line (first) is ` +
    `${armName('base', arm.baseline)}, the **${headLine.colour}** line (second) is ${armName('head', arm.head)}. ` +
    `Curve: ${escapeMarkdown(
      curveLine(curve, (v) => groupedNumber(v, 0), '–'),
      600,
    )}.`;
  const chart = renderScalingChart({
    title: `${curve.workload}: median TPS`,
    yAxisTitle: 'TPS',
    clients: points.map((p) => p.clients),
    base: points.map((p) => p.base),
    head: points.map((p) => p.head),
  });
  return [legend, chart.join('\n')];
}
