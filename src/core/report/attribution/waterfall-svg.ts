/**
 * The attribution's waterfall as an SVG image (waterfall.svg under --out, docs/attribute.md): one panel
 * per workload, from the `from` end's count through each commit named and the remainder to the `to` end's,
 * the bars of attribution-waterfall.ts. The ends are grey columns up to their level; each step floats from
 * the running total before it to the one after it: up and red for more instructions (a regression), down
 * and green for fewer (an improvement). Each bar is labelled with its short sha and its change per
 * transaction; its subject is the bar's tooltip (<title>). The axis spans the lowest to the highest running
 * total (a change of a few per cent fills it), so it does not start at zero, and says so.
 *
 * Pure and self-contained (no script, no external font or link), every text escaped, so the file can be
 * shown as an image anywhere (a history site, a pull request, a job's artifacts).
 */
import type { AttributionReport, WorkloadSums } from '../../attribution/attribution-report.js';
import { waterfallOf, type WaterfallBar } from '../../attribution/attribution-waterfall.js';
import { formatPct } from '../../compare/format.js';
import { short } from '../../util/commit-id.js';
import { escapeHtml } from '../html-escape.js';
import { groupedNumber } from '../table-cells.js';

/** Layout, in px. */
const BAR = 56;
const GAP = 18;
const LEFT = 88;
const RIGHT = 16;
const TITLE = 30;
const PLOT = 180;
const BELOW = 40;
const PANEL = TITLE + PLOT + BELOW;
/** Share of the plot kept empty above and below the running totals. */
const PAD = 0.12;

const COLORS = { level: '#8a8f98', up: '#c62828', down: '#2e7d32', zero: '#555555' } as const;

/** A bar's direction: an end's level, more instructions, fewer, or no change. */
export type BarClass = keyof typeof COLORS;

export function barClass(b: WaterfallBar): BarClass {
  if (b.kind === 'from' || b.kind === 'to') return 'level';
  return b.value > 0 ? 'up' : b.value < 0 ? 'down' : 'zero';
}

const num = (v: number) => groupedNumber(v, 0);
const signed = (v: number) => `${v > 0 ? '+' : v < 0 ? '-' : '±'}${groupedNumber(Math.abs(v), 0)}`;
const px = (v: number) => String(Math.round(v * 10) / 10);

export function renderWaterfallSvg(report: AttributionReport): string {
  const panels = report.workloads.map((w) => ({ w, bars: waterfallOf(report, w.workload) }));
  const columns = Math.max(...panels.map((p) => p.bars.length));
  const width = LEFT + columns * (BAR + GAP) + RIGHT;
  const height = PANEL * panels.length;
  const title = `Where the instructions per transaction went: ${short(report.from.sha)} .. ${short(report.to.sha)}`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(title)}">`,
    `<title>${escapeHtml(title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<g font-family="sans-serif" font-size="11" fill="#222222">`,
    ...panels.flatMap((p, i) => panel(p.w, p.bars, i * PANEL)),
    '</g>',
    '</svg>',
    '',
  ].join('\n');
}

function panel(w: WorkloadSums, bars: readonly WaterfallBar[], top: number): string[] {
  const values = bars.flatMap((b) => [b.start, b.end]);
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  const pad = (hi - lo) * PAD || Math.max(1, Math.abs(hi) * 0.01);
  lo -= pad;
  hi += pad;
  const plotTop = top + TITLE;
  const y = (v: number) => plotTop + PLOT - ((v - lo) / (hi - lo)) * PLOT;
  const bottom = plotTop + PLOT;
  const out = [
    `<g class="workload" data-workload="${escapeHtml(w.workload)}">`,
    `<text x="${LEFT}" y="${top + 18}" font-size="13" font-weight="bold">${escapeHtml(
      `${w.workload}: ${num(w.fromPerTx)} -> ${num(w.toPerTx)} instructions/tx (${signed(w.changePerTx)}, ${formatPct(w.changePct)})`,
    )}</text>`,
    // The axis: its ends labelled; it does not start at zero.
    `<line x1="${LEFT - 6}" y1="${px(plotTop)}" x2="${LEFT - 6}" y2="${px(bottom)}" stroke="#999999"/>`,
    `<text x="${LEFT - 10}" y="${px(y(hi) + 4)}" text-anchor="end">${num(hi)}</text>`,
    `<text x="${LEFT - 10}" y="${px(y(lo))}" text-anchor="end">${num(lo)}</text>`,
    `<text x="${LEFT - 10}" y="${px(bottom + 14)}" text-anchor="end" fill="#777777">(not from 0)</text>`,
  ];
  bars.forEach((b, i) => {
    const x = LEFT + i * (BAR + GAP);
    const cls = barClass(b);
    const [from, to] = cls === 'level' ? [lo, b.value] : [Math.min(b.start, b.end), Math.max(b.start, b.end)];
    const yTop = y(to);
    const h = Math.max(1, y(from) - yTop);
    const label = b.kind === 'commit' ? short(b.label) : b.kind;
    const value = cls === 'level' ? num(b.value) : signed(b.value);
    const tip =
      b.kind === 'commit' ? `${short(b.label)} ${b.subject ?? ''}: ${value}/tx` : `${label}: ${value}/tx`;
    // The change sits above a bar going up, below one going down; an end's level above it.
    const valueY = cls === 'down' ? yTop + h + 12 : yTop - 4;
    out.push(
      `<g class="bar ${cls}" data-kind="${b.kind}" data-value="${b.value}" data-start="${b.start}" data-end="${b.end}">`,
      `<title>${escapeHtml(tip)}</title>`,
      `<rect x="${px(x)}" y="${px(yTop)}" width="${BAR}" height="${px(h)}" fill="${COLORS[cls]}"/>`,
      `<text x="${px(x + BAR / 2)}" y="${px(valueY)}" text-anchor="middle">${escapeHtml(value)}</text>`,
      `<text x="${px(x + BAR / 2)}" y="${px(bottom + 14)}" text-anchor="middle" font-family="monospace">${escapeHtml(label)}</text>`,
      '</g>',
    );
    // A dotted connector from this bar's end to the next bar.
    if (i < bars.length - 1) {
      const level = y(cls === 'level' ? b.value : b.end);
      out.push(
        `<line x1="${px(x + BAR)}" y1="${px(level)}" x2="${px(x + BAR + GAP)}" y2="${px(level)}" stroke="#999999" stroke-dasharray="2,2"/>`,
      );
    }
  });
  out.push('</g>');
  return out;
}
