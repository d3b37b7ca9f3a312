/**
 * The differential profile of a cell: per function, self instructions per transaction in base and head
 * (the difference of the long and the short run's profiles over the difference of their transactions, so
 * connection and exit cost cancel as in the totals) and head − base, largest movers first.
 */
import type { ProfileMover } from '../../core/results/instructions.js';
import type { FunctionCost } from './cachegrind-file.js';

/** One arm's two runs: self Ir per function of the short and the long run, and the transaction counts. */
export interface ArmRuns {
  short: Map<string, FunctionCost>;
  long: Map<string, FunctionCost>;
  transactions: { short: number; long: number };
}

/** Self Ir per transaction per function (keys as in the profiles). */
export function perTransactionCosts(runs: ArmRuns): Map<string, FunctionCost> {
  const n = runs.transactions.long - runs.transactions.short;
  const out = new Map<string, FunctionCost>();
  for (const key of new Set([...runs.short.keys(), ...runs.long.keys()])) {
    const f = runs.long.get(key) ?? runs.short.get(key)!;
    const ir = ((runs.long.get(key)?.ir ?? 0) - (runs.short.get(key)?.ir ?? 0)) / n;
    out.set(key, { fn: f.fn, file: f.file, ir });
  }
  return out;
}

/** Every function of either arm with base, head and head − base per transaction, by |delta| descending. */
export function diffProfiles(base: ArmRuns, head: ArmRuns): ProfileMover[] {
  return diffCosts(perTransactionCosts(base), perTransactionCosts(head));
}

/** The same from costs already per transaction (perTransactionCosts, or an arm's profile file). */
export function diffCosts(
  b: ReadonlyMap<string, FunctionCost>,
  h: ReadonlyMap<string, FunctionCost>,
): ProfileMover[] {
  const rows: ProfileMover[] = [];
  for (const key of new Set([...b.keys(), ...h.keys()])) {
    const f = h.get(key) ?? b.get(key)!;
    const baseIrPerTx = b.get(key)?.ir ?? 0;
    const headIrPerTx = h.get(key)?.ir ?? 0;
    rows.push({ fn: f.fn, file: f.file, baseIrPerTx, headIrPerTx, deltaIrPerTx: headIrPerTx - baseIrPerTx });
  }
  return rows.sort((x, y) => Math.abs(y.deltaIrPerTx) - Math.abs(x.deltaIrPerTx) || x.fn.localeCompare(y.fn));
}

/** The profile as tab-separated text (a run-directory artifact): one function per line, largest movers first. */
export function profileText(rows: readonly ProfileMover[], header: string): string {
  const lines = [
    `# ${header}`,
    '# self instructions per transaction: (long run − short run) / (long − short transactions)',
    ['delta', 'base', 'head', 'function', 'file'].join('\t'),
  ];
  for (const r of rows) {
    lines.push(
      [r.deltaIrPerTx.toFixed(1), r.baseIrPerTx.toFixed(1), r.headIrPerTx.toFixed(1), r.fn, r.file].join(
        '\t',
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}
