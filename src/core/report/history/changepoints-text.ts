import { formatP, formatPct, formatPctInterval } from '../../compare/format.js';
import type { ChangePoint } from '../../stats/e-divisive.js';

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
  /** The change points, oldest first, each with the file line of its first new value. */
  changePoints: Array<ChangePoint & { line: number }>;
}

/**
 * The change points as a ministat-like text: the verdict line first, then one row per change point with
 * its index (0-based, and the file line), the means before and after, the relative change (with its 95%
 * CI on the log scale) and p.
 */
export function renderChangePointsText(r: ChangePointReport): string {
  const count = r.changePoints.length;
  const criteria = `p < ${formatP(r.maxP)}, min segment ${r.minSegment}, magnitude > ${r.magnitudePct}%`;
  const lines = [
    `verdict: ${count === 0 ? 'no change point' : `${count} change point${count === 1 ? '' : 's'}`} in ${r.n} values of ${r.file} (${criteria})`,
  ];
  if (count > 0) {
    const rows = r.changePoints.map((c) => [
      String(c.index),
      String(c.line),
      formatMean(c.meanBefore),
      formatMean(c.meanAfter),
      formatPct(c.relativeChange * 100) +
        (c.ci ? ` ${formatPctInterval(c.ci.lower * 100, c.ci.upper * 100)}` : ''),
      formatP(c.p),
      `${c.nBefore}/${c.nAfter}`,
    ]);
    const header = [
      'index',
      'line',
      'mean before',
      'mean after',
      r.scale === 'log' ? 'change [95% CI]' : 'change',
      'p',
      'n before/after',
    ];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
    const format = (row: string[]) => row.map((cell, i) => cell.padStart(widths[i]!)).join('  ');
    lines.push(format(header), ...rows.map(format));
    if (r.scale === 'log') lines.push('means are geometric (the analysis ran on ln of the values)');
  }
  return `${lines.join('\n')}\n`;
}

/** Six significant digits, without exponent for ordinary magnitudes. */
function formatMean(v: number): string {
  return String(Number(v.toPrecision(6)));
}
