/**
 * Number formats shared by the reasons' messages and the renderers, so a value reads the same everywhere.
 */

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
