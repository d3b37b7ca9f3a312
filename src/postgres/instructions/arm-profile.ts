/**
 * One arm's own profile as a file: self instructions per transaction per function (perTransactionCosts of
 * its median repetition), written beside its counts so that two counts made apart (an attribution counts
 * every commit alone, and may resume from its journal) can later be compared as the differential profile
 * of a comparison is (diffCosts). Tab-separated: `#` comment lines, a header, then `ir_per_tx fn file`.
 */
import { functionKey, type FunctionCost } from './cachegrind-file.js';

const HEADER = ['self_ir_per_tx', 'function', 'file'].join('\t');

/** The file name of a workload's profile on an arm, under the counting run's profile directory. */
export function armProfileName(workload: string, label: string): string {
  return `${workload}.${label}.per-tx.tsv`;
}

/** The profile as text, largest functions first. */
export function armProfileText(costs: ReadonlyMap<string, FunctionCost>, header: string): string {
  const rows = [...costs.values()].sort((a, b) => b.ir - a.ir || a.fn.localeCompare(b.fn));
  const lines = [
    `# ${header}`,
    '# self instructions per transaction: (long run − short run) / (long − short transactions)',
    HEADER,
  ];
  for (const f of rows) lines.push([f.ir.toFixed(1), f.fn, f.file].join('\t'));
  return `${lines.join('\n')}\n`;
}

/** Reads armProfileText's output back; throws naming `what` (the file) and the line it cannot read. */
export function parseArmProfile(text: string, what: string): Map<string, FunctionCost> {
  const out = new Map<string, FunctionCost>();
  let header = false;
  for (const [i, line] of text.split('\n').entries()) {
    if (line === '' || line.startsWith('#')) continue;
    if (!header) {
      if (line !== HEADER)
        throw new Error(`${what}:${i + 1}: expected the header '${HEADER}', got '${line}'`);
      header = true;
      continue;
    }
    const [ir, fn, file] = line.split('\t');
    const value = Number(ir);
    if (fn === undefined || file === undefined || ir === '' || !Number.isFinite(value)) {
      throw new Error(
        `${what}:${i + 1}: expected '<instructions per tx>\\t<function>\\t<file>', got '${line}'`,
      );
    }
    out.set(functionKey(file, fn), { fn, file, ir: value });
  }
  if (!header) throw new Error(`${what}: not a per-transaction profile (no '${HEADER}' line)`);
  return out;
}
