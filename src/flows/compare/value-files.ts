/**
 * `pgperf stat`'s comparison: two files of measurements, one number per line (blank lines and lines
 * starting with # skipped), compared as two samples. A value that is a number but unusable (0, negative,
 * NaN, Infinity) is kept for the comparison to exclude and count; a line that is no number is refused
 * naming the file and line.
 */
import { compareSamples } from '../../core/compare/analysis/compare-samples.js';
import type { SampleComparison } from '../../core/compare/comparison-types.js';
import { readFile } from 'node:fs/promises';
import { UserError, errorMessage } from '../../core/util/errors.js';

export async function compareValueFiles(
  baseFile: string,
  headFile: string,
  options: { alpha: number; thresholdPct: number },
): Promise<SampleComparison> {
  // Read side by side (two pipes may each wait for the other's reader), refused in a fixed order: base's
  // problem first when both have one, whichever read ends first.
  const [base, head] = await Promise.allSettled([readValues(baseFile, 'base'), readValues(headFile, 'head')]);
  if (base.status === 'rejected') throw base.reason;
  if (head.status === 'rejected') throw head.reason;
  return compareSamples(base.value, head.value, options);
}

/**
 * One number per line; unparseable lines are user errors naming file and line. Any file is read, pipes
 * too (`pgperf stat <(cmd) <(cmd)`); one that cannot be is named as the base or head file.
 */
async function readValues(file: string, side: 'base' | 'head'): Promise<number[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(`${side} file ${file}: cannot read it (${code ?? errorMessage(e)})`);
  }
  const values: number[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const token = line.trim();
    if (token === '' || token.startsWith('#')) return;
    const key = token.toLowerCase();
    const value = Object.hasOwn(NON_FINITE, key) ? NON_FINITE[key]! : Number(token);
    if (Number.isNaN(value) && key !== 'nan') {
      throw new UserError(`${file} line ${i + 1}: '${token}' is not a number; expected one number per line`);
    }
    values.push(value);
  });
  if (values.length === 0) {
    throw new UserError(
      `${file}: no values (empty, or only blank and # lines); expected one number per line`,
    );
  }
  return values;
}

/** Spellings of non-finite values that are accepted (and then excluded as unusable, with a count). */
const NON_FINITE: Record<string, number> = {
  nan: Number.NaN,
  inf: Number.POSITIVE_INFINITY,
  '+inf': Number.POSITIVE_INFINITY,
  '-inf': Number.NEGATIVE_INFINITY,
  infinity: Number.POSITIVE_INFINITY,
  '+infinity': Number.POSITIVE_INFINITY,
  '-infinity': Number.NEGATIVE_INFINITY,
};
