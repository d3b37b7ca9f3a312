/**
 * How a table-model.ts row becomes the texts of its cells, shared by every markup: the columns, a row's
 * cell texts under a markup's style, and the two styles (plain for the terminal, rich with icons and
 * grouped numbers for markdown and HTML). The markup then escapes and lays them out.
 */
import { formatDeltaCi, formatPAdjusted, formatPct } from '../compare/format.js';
import { UNSTABLE_PHRASE } from './reasons.js';
import type { MetricTable, TableRow } from './table-model.js';
import { VERDICT_DISPLAY } from './verdict-display.js';
import { formatBytes } from '../util/bytes.js';
import { isMemoryBytes } from '../results/memory.js';

/** A table's columns: the header and whether the column holds numbers (right-aligned). */
export interface Column {
  header: string;
  numeric: boolean;
}

/** The header of the paired rows' figure (table-model.ts perRoundPct); the legend says what it is. */
export const PER_ROUND_HEADER = 'per-round % (geo. mean)';

/** A table's columns; the per-round column only when some row was tested paired. */
export function columns(table: Pick<MetricTable, 'label' | 'paired'>): Column[] {
  return [
    { header: 'clients', numeric: true },
    { header: 'n', numeric: true },
    { header: `base ${table.label} (median)`, numeric: true },
    { header: `head ${table.label} (median)`, numeric: true },
    ...(table.paired ? [{ header: PER_ROUND_HEADER, numeric: true }] : []),
    { header: 'delta % [95% CI]', numeric: true },
    { header: 'p (adj.)', numeric: true },
    { header: 'verdict', numeric: false },
  ];
}

/** What differs between markups: how a number and a missing value look, and the verdict cell. */
export interface CellStyle {
  number: (value: number, decimals: number) => string;
  missing: string;
  verdict: (row: TableRow) => string;
}

/** A row's cells as text, in columns() order; sizes as the steady line writes them ("1.87 MB"), not as byte counts. */
export function rowTexts(
  table: Pick<MetricTable, 'decimals' | 'paired' | 'metric'>,
  row: TableRow,
  style: CellStyle,
): string[] {
  const median = (v: number | null) =>
    v === null
      ? style.missing
      : isMemoryBytes(table.metric)
        ? formatBytes(v)
        : style.number(v, table.decimals);
  return [
    String(row.clients),
    `${row.baseN}/${row.headN}`,
    median(row.baseMedian),
    median(row.headMedian),
    ...(table.paired ? [row.perRoundPct === null ? style.missing : formatPct(row.perRoundPct)] : []),
    formatDeltaCi(row) ?? style.missing,
    formatPAdjusted(row) ?? style.missing,
    style.verdict(row),
  ];
}

/** A note's client counts in words: "1 client", "8 clients", "1, 2 and 4 clients". */
export function clientsLabel(clients: readonly number[]): string {
  const list =
    clients.length > 1 ? `${clients.slice(0, -1).join(', ')} and ${clients.at(-1)}` : String(clients[0]);
  return `${list} client${clients.length === 1 && clients[0] === 1 ? '' : 's'}`;
}

/** "regression (significant, beyond ±2%)": a verdict word with the row's reason phrase. */
function withReason(word: string, row: Pick<TableRow, 'reason'>): string {
  return row.reason ? `${word} (${row.reason})` : word;
}

/** A number with thousands separators for tables ("12,345.6"); charts use plain numbers. */
export function groupedNumber(value: number, decimals: number): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/** The terminal's cells: plain numbers, ASCII dash, the verdict code ("no-change"). */
export const PLAIN_CELLS: CellStyle = {
  number: (v, decimals) => v.toFixed(decimals),
  missing: '-',
  verdict: (row) => withReason(row.verdict, row) + (row.unstable ? ` [${UNSTABLE_PHRASE}]` : ''),
};

/** Markdown's and HTML's cells: grouped numbers, en dash, the verdict's icon and word. */
export const RICH_CELLS: CellStyle = {
  number: groupedNumber,
  missing: '–',
  verdict: (row) => {
    const v = VERDICT_DISPLAY[row.verdict];
    return `${v.icon} ${withReason(v.word, row)}${row.unstable ? ` · ⚠️ ${UNSTABLE_PHRASE}` : ''}`;
  },
};
