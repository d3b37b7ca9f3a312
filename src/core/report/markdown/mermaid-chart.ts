/**
 * A scaling curve (median TPS over the client counts, base and head) as a mermaid `xychart-beta` block,
 * which GitHub renders inline in comments and job summaries.
 *
 * xychart-beta has no legend, so the caller says which line is which (see CHART_LINES): lines are drawn
 * in the order given, coloured from the palette set in the block's init directive. The grammar has no
 * escapes (a quoted string ends at the next `"`, `%%` starts a comment), so titles are reduced to
 * MERMAID_SAFE characters, and numbers are written plainly (no thousands separators).
 */

/** The lines of a chart in drawing order, with the colour each gets from the palette below. */
export const CHART_LINES = [
  { role: 'base', colour: 'blue', hex: '#1f77b4' },
  { role: 'head', colour: 'orange', hex: '#ff7f0e' },
] as const;

/** Characters allowed in mermaid titles and labels; everything else becomes "_". */
const MERMAID_UNSAFE = /[^A-Za-z0-9 .,:_()/+=-]/g;
const MAX_TITLE_CHARS = 80;

/** Text reduced to characters that cannot end a quoted mermaid string or start a comment or directive. */
export function mermaidText(text: string): string {
  const safe = text.replace(/\s+/g, ' ').replace(MERMAID_UNSAFE, '_').trim();
  return safe.length > MAX_TITLE_CHARS ? `${safe.slice(0, MAX_TITLE_CHARS - 3)}...` : safe;
}

export interface ScalingChartInput {
  title: string;
  yAxisTitle: string;
  /** Client counts, ascending: the x-axis categories. */
  clients: readonly number[];
  /** One value per client count for each line, in CHART_LINES order. */
  base: readonly number[];
  head: readonly number[];
}

/**
 * The fenced block, one string per line. The y-axis starts at 0 so that the lines' distance is not
 * exaggerated, and ends at a round number above the largest value.
 *
 * @throws RangeError when the series lengths differ from the client counts or a value is not finite.
 */
export function renderScalingChart(input: ScalingChartInput): string[] {
  const { clients, base, head } = input;
  if (base.length !== clients.length || head.length !== clients.length) {
    throw new RangeError(
      `chart series need one value per client count (${clients.length}), got ${base.length} and ${head.length}`,
    );
  }
  const values = [...base, ...head];
  if (!values.every(Number.isFinite)) throw new RangeError('chart values must be finite numbers');
  const palette = CHART_LINES.map((l) => l.hex).join(', ');
  const series = (v: readonly number[]) => `[${v.map(chartNumber).join(', ')}]`;
  return [
    '```mermaid',
    `%%{init: {"themeVariables": {"xyChart": {"plotColorPalette": "${palette}"}}}}%%`,
    'xychart-beta',
    `  title "${mermaidText(input.title)}"`,
    `  x-axis "clients" [${clients.map((c) => `"${c}"`).join(', ')}]`,
    `  y-axis "${mermaidText(input.yAxisTitle)}" 0 --> ${niceCeiling(Math.max(0, ...values))}`,
    `  line ${series(base)}`,
    `  line ${series(head)}`,
    '```',
  ];
}

/** A number as the xychart grammar reads it: plain decimal, one decimal place, no exponent. */
export function chartNumber(value: number): string {
  return value.toFixed(1);
}

/** The smallest of 1, 2, 2.5, 5 × 10^k at or above 1.05·value (headroom above the top point), at least 1. */
export function niceCeiling(value: number): number {
  const target = value * 1.05;
  if (!(target > 1)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(target));
  const step = [1, 2, 2.5, 5, 10].find((s) => s * magnitude >= target) ?? 10;
  return step * magnitude;
}
