import { formatP, formatPct, formatPctInterval } from '../../compare/format.js';
import type { ChangePoint } from '../../stats/e-divisive.js';
import type { SeriesEvent, SeriesEventKind } from '../../history/series-events.js';

/** What `pgperf changepoints` found, as data: rendered as text or printed as JSON. */
export interface ChangePointReport {
  file: string;
  /** Values analysed. */
  n: number;
  /** The options in effect. */
  maxP: number;
  minSegment: number;
  /** Minimum magnitude, in percent. */
  magnitudePct: number;
  scale: 'linear' | 'log';
  /** E-Divisive's change points, oldest first, each with the file line of its first new value. */
  changePoints: Array<ChangePoint & { line: number }>;
  /**
   * What the change points are (series-events.ts), oldest first, each with the file lines of its `from`
   * and `to` values; the text prints these.
   */
  events: Array<SeriesEvent & { fromLine: number; toLine: number }>;
  /** The period (in values) of a periodic pattern taken out before the search; null when none. */
  period: number | null;
}

/**
 * The events as a ministat-like text: the verdict line first (how many of each kind), then one row per event
 * with its kind, where it is (a step: the 0-based index and file line of its first new value; a drift and a
 * transient: from the last value before to the first after, "100-160"), the levels before and after (a
 * transient: during; noisier: the spread of one value), the change (with its 95% CI on the log scale), p,
 * and what the kind adds (a drift's change per value, where a transient came back, how much noisier).
 */
export function renderChangePointsText(r: ChangePointReport): string {
  const count = r.events.length;
  const criteria = `p < ${formatP(r.maxP)}, min segment ${r.minSegment}, magnitude > ${r.magnitudePct}%`;
  const byKind = KINDS.map((k) => [k, r.events.filter((e) => e.kind === k).length] as const)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`);
  const lines = [
    `verdict: ${count === 0 ? 'no change' : `${count} event${count === 1 ? '' : 's'} (${byKind.join(', ')})`} in ${r.n} values of ${r.file} (${criteria})`,
  ];
  if (r.period !== null) {
    lines.push(`a periodic pattern of ${r.period} values was taken out first (not an event)`);
  }
  if (count > 0) {
    const rows = r.events.map((e) => [
      e.kind,
      e.kind === 'step' || e.kind === 'noisier' ? String(e.to) : `${e.from}-${e.to}`,
      e.kind === 'step' || e.kind === 'noisier' ? String(e.toLine) : `${e.fromLine}-${e.toLine}`,
      formatMean(e.before),
      formatMean(e.after),
      e.kind === 'noisier'
        ? `x${(e.relativeChange + 1).toFixed(2)}`
        : formatPct(e.relativeChange * 100) +
          (e.ci ? ` ${formatPctInterval(e.ci.lower * 100, e.ci.upper * 100)}` : ''),
      formatP(e.p),
      detail(e, r),
    ]);
    const header = [
      'kind',
      'index',
      'line',
      'before',
      'after',
      r.scale === 'log' ? 'change [95% CI]' : 'change',
      'p',
      'detail',
    ];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
    const format = (row: string[]) =>
      row
        .map((cell, i) =>
          i === 0 || i === row.length - 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!),
        )
        .join('  ')
        .trimEnd();
    lines.push(format(header), ...rows.map(format));
    if (r.scale === 'log') lines.push('means are geometric (the analysis ran on ln of the values)');
  }
  return `${lines.join('\n')}\n`;
}

const KINDS: readonly SeriesEventKind[] = ['step', 'drift', 'transient', 'noisier'];

/** What a kind adds to its row. */
function detail(e: SeriesEvent, r: ChangePointReport): string {
  if (e.kind === 'step') {
    const c = e.changePoints[0]!;
    return `${c.nBefore}/${c.nAfter} values before/after`;
  }
  if (e.kind === 'drift') {
    return `over ${e.to - e.from} values, ${formatPct(e.perPoint! * 100, 3)} a value`;
  }
  if (e.kind === 'transient') return `back to ${formatMean(e.back!)} at index ${e.to}`;
  return `spread of one value${r.scale === 'log' ? ' (ln)' : ''}: never a regression`;
}

/** Six significant digits, without exponent for ordinary magnitudes. */
function formatMean(v: number): string {
  return String(Number(v.toPrecision(6)));
}
