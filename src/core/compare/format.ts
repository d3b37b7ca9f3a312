/**
 * Number formats shared by the reasons' messages and the renderers, so a value reads the same everywhere.
 */
import type { CellComparison } from './comparison-types.js';

/** A signed percentage with two decimals: "+1.25%", "-3.70%", "0.00%". */
export function formatPct(pct: number, decimals = 2): string {
  const text = Math.abs(pct).toFixed(decimals);
  if (Number(text) === 0) return `${(0).toFixed(decimals)}%`;
  return `${pct < 0 ? '-' : '+'}${text}%`;
}

/** An interval of percentages: "[-3.70%, -2.33%]". */
export function formatPctInterval(lower: number, upper: number): string {
  return `[${formatPct(lower)}, ${formatPct(upper)}]`;
}

/** A p-value with two significant digits, in exponent form below 0.001: "0.0079", "3.0e-8", "1". */
export function formatP(p: number): string {
  if (p >= 0.9995) return '1';
  if (p >= 0.001) return String(Number(p.toPrecision(2)));
  return p.toExponential(1);
}

/** A confidence level: 0.9682… → "96.8%". */
export function formatLevel(level: number): string {
  return `${Number((level * 100).toFixed(1))}%`;
}

/**
 * A cell's delta with its 95% CI, e.g. "-4.12% [-5.01%, -3.20%]", with " @90%" when the sample sizes
 * cannot reach the nominal level; undefined when the cell has no estimate.
 */
export function formatDeltaCi(cell: Pick<CellComparison, 'deltaPct' | 'ci95'>): string | undefined {
  if (cell.deltaPct === null || !cell.ci95) return undefined;
  const level = cell.ci95.achievedLevel < cell.ci95.level ? ` @${formatLevel(cell.ci95.achievedLevel)}` : '';
  return `${formatPct(cell.deltaPct)} ${formatPctInterval(cell.ci95.lowerPct, cell.ci95.upperPct)}${level}`;
}

/** "p (Holm-adjusted p)", e.g. "0.0079 (0.016)"; undefined when no test was possible. */
export function formatPAdjusted(cell: Pick<CellComparison, 'p' | 'pAdjusted'>): string | undefined {
  return cell.p === null ? undefined : `${formatP(cell.p)} (${formatP(cell.pAdjusted ?? cell.p)})`;
}
